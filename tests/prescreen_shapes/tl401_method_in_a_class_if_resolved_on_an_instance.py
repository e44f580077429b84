# TL401 edge of _call_carries' candidates: `helper.compute` resolves (Names.method) to a def under `if` in the class body, which `_is_method` and `_in_class_body` leave out
import torch


class Helper:
    def __init__(self, model):
        self.model = model

    if hasattr(torch, "compile"):
        def compute(self, x):
            return self.model(x)


def train(net, loader, optimizer):
    helper = Helper(net)
    total = 0
    for x in loader:
        loss = net(x).mean()
        loss.backward()
        optimizer.step()
        total += helper.compute(x)
    return total
