# TL401 edge of accumulates_per_step: an imported metric `mse(...)` called plainly, named like a criterion attribute (`self.mse = Mse()`)
import torch
from torch import nn
from torch.nn import MSELoss as Mse
from torchmetrics.functional import mean_squared_error as mse


class Trainer:
    def __init__(self):
        self.net = nn.Linear(4, 1)
        self.mse = Mse()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.metric_total = 0.0

    def fit(self, loader):
        for x, y in loader:
            pred = self.net(x)
            loss = self.mse(pred, y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.metric_total += mse(pred.detach(), y)
