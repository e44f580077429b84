# TL401 edge of _call_carries' candidates: a def under `try` in a class body shares the name of a functional loss
import torch
import torch.nn.functional as F


class Losses:
    try:
        def mse_loss(self, a, b):
            return 0
    except ImportError:
        pass


def train(model, loader, optimizer):
    total = 0
    for x, y in loader:
        out = model(x)
        loss = F.mse_loss(out, y)
        loss.backward()
        optimizer.step()
        total += F.mse_loss(out, y)
    return total
