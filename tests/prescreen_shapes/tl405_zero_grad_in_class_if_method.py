# TL405 edge of _methods_by_name: `helper.clear(...)` by name reaches only defs directly in a class body (CallGraph.methods), not one under `if`
import torch
from torch import nn

USE_CLEAR = True


class Helper:
    if USE_CLEAR:
        def clear(self, optimizer):
            optimizer.zero_grad()


def train(model: nn.Module, loader, helper: Helper):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        helper.clear(optimizer)
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
