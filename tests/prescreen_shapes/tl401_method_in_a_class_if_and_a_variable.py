# TL401 edge of _resolves_to_nothing: `torch.cat` skips the variable `cat`, then a def under `if` in a class body is taken for the callee
import torch


class Helper:
    if hasattr(torch, "cat"):
        def cat(self, xs):
            return 0


def train(model, loader, optimizer):
    total = 0
    for cat, x in enumerate(loader):
        loss = model(x)
        loss.backward()
        optimizer.step()
        total += torch.cat([loss])
    return total
