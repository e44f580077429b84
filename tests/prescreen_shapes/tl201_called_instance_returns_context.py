# TL201 edge of amp_may_be_cuda_only: `amp_ctx = Picker()()`: nodes._callable_names gives a call whose callee is a call {'__call__', '()'}, so walk._runs_of never reads what Picker.__call__ returns (calls_amp False); Names.callees resolves `Picker()` to Picker.__call__, whose return is torch.cuda.amp.autocast
import torch


class Picker:
    def __call__(self):
        return torch.cuda.amp.autocast


def train(model, loader, optimizer, device):
    amp_ctx = Picker()()
    for x, y in loader:
        with amp_ctx():
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
