# TL405 edge of _surely_called (dispatch): `self.clear()` in a closure defined in the loop body is resolved by CallGraph by name from the closure (no method), which misses a def under the class body's `if`
import torch
from torch import nn

USE_CLEAR = True


class Trainer:
    if USE_CLEAR:
        def clear(self):
            self.optimizer.zero_grad()

    def __init__(self, model: nn.Module):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, loader):
        for x in loader:
            def before():
                self.clear()

            before()
            loss = self.model(x).mean()
            loss.backward()
            self.optimizer.step()
