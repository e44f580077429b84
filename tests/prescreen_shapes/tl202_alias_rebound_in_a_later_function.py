# TL202 edge of sniffs_device_type: `amp_ctx` is imported under one name twice; ImportTable keeps the later binding (torch.autocast), the walk's `_aliases` the earlier (nullcontext)
import torch


def evaluate(model, loader):
    from contextlib import nullcontext as amp_ctx

    with amp_ctx():
        return [model(x) for x in loader]


def train(model, loader, optimizer, device):
    from torch import autocast as amp_ctx

    device_type = "cuda" if "cuda" in device else "cpu"
    for x, y in loader:
        with amp_ctx(device_type=device_type, dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
