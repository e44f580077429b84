# TL401 edge of _seen_bindings: a generator expression's target in the method is no binding of the module's `anchor`
import torch
from torch import nn

net = nn.Linear(4, 1)
anchor = net(torch.randn(2, 4)).sum()


class Trainer:
    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.drift = 0.0

    def fit(self, loader):
        count = sum(1 for anchor in range(3))
        for x in loader:
            loss = net(x).mean() / count
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.drift = self.drift + anchor
