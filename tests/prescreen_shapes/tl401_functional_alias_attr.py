# TL401 edge of accumulates_per_step: a functional-loss import alias whose name an attribute store shares (`self.ce = ...`)
import torch
from torch import nn
from torch.nn.functional import cross_entropy as ce


class Trainer:
    def __init__(self):
        self.net = nn.Linear(4, 3)
        self.ce = ce
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit(self, loader):
        total = 0.0
        for x, y in loader:
            logits = self.net(x)
            loss = logits.logsumexp(1).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            total += ce(logits.detach(), y)
        return total
