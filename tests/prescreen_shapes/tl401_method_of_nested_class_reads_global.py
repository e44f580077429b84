# TL401 edge of _seen_bindings: a method of a class made in a function reads the module's `reference`; the class body's own `reference` is no binding the method sees
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
reference = model(torch.randn(2, 4)).mean()


def make_trainer():
    class Trainer:
        reference = 1.0

        def __init__(self):
            self.total = 0.0

        def fit(self, loader):
            for x in loader:
                loss = model(x).mean()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                self.total += reference

    return Trainer()
