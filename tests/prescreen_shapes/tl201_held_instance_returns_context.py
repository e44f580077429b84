# TL201 edge of amp_may_be_cuda_only: `amp_ctx = picker()` with `picker = Picker()`: walk._runs_of reads `picker()` only as returns_of('picker'), not the returns of Picker.__call__ that calling the instance runs (calls_amp False); Names.callees resolves it to __call__, which returns torch.cuda.amp.autocast
import torch


class Picker:
    def __call__(self):
        return torch.cuda.amp.autocast


picker = Picker()


def train(model, loader, optimizer, device):
    amp_ctx = picker()
    for x, y in loader:
        with amp_ctx():
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
