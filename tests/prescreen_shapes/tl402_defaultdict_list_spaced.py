# TL402 edge of trigger ("[]", "list(", "(list)"): `defaultdict( list )` is a dict of lists to _history_shape (dotted(args[0]) == "list"), with spaces inside the parentheses
from collections import defaultdict

import torch
from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.metrics = defaultdict( list )

    def training_step(self, batch):
        x, y = batch
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.metrics["loss"].append({"value": loss.item()})
        return loss.item()
