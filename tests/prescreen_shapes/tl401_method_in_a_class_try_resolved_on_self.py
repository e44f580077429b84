# TL401 edge of _call_carries' candidates: `self.compute(...)` resolves to a def under `try` in the class body
import torch


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.total = 0

    try:
        def compute(self, x):
            return self.model(x)
    except AttributeError:
        pass

    def fit(self, loader):
        for x in loader:
            loss = self.model(x).mean()
            loss.backward()
            self.optimizer.step()
            self.total += self.compute(x)
