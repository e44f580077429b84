# TL401 edge of accumulates_per_step: a plain call `mse(...)` by a loop target whose last name a criterion attribute shares
import torch
from torch import nn
from torch.nn import MSELoss as Mse


class Trainer:
    def __init__(self):
        self.net = nn.Linear(4, 1)
        self.mse = Mse()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit(self, loader):
        total = 0.0
        for x, y in loader:
            pred = self.net(x)
            loss = ((pred - y) ** 2).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            for mse in (self.mse,):
                total += mse(pred.detach(), y)
        return total
