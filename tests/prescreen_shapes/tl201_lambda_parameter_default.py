# TL201 edge of amp_may_be_cuda_only: the CUDA-only API is a lambda parameter's default, called in the lambda's body; the walk records lambda parameters as opaque (no parameter_sources), so `amp_ctx(...)` never reaches `autocast` (calls_amp False); the rule's _values_held follows the PARAMETER binding to its default
import torch


def train(model, loader, optimizer, device):
    make_ctx = lambda amp_ctx=torch.cuda.amp.autocast: amp_ctx(dtype=torch.float16)
    for x, y in loader:
        with make_ctx():
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
