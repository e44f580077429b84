# TL403 edge of handles_oom: `OutOfMemory` imported in both branches of an `if`; ImportTable keeps the later (torch.OutOfMemoryError), the walk's `_aliases` the earlier (RuntimeError)
import torch

if not hasattr(torch, "OutOfMemoryError"):
    from builtins import RuntimeError as OutOfMemory
else:
    from torch import OutOfMemoryError as OutOfMemory


def train(model, loader, optimizer):
    for x, y in loader:
        try:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        except OutOfMemory:
            torch.cuda.empty_cache()
            continue
