# TL401 edge of _call_carries' candidates: a def under `if` in a class body is no method to GraphValues._is_method
import torch


class Helper:
    if hasattr(torch, "cat"):
        def cat(self, xs):
            return 0


def train(model, loader, optimizer):
    total = 0
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        total += torch.cat([loss])
    return total
