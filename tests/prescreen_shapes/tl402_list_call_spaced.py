# TL402 edge of trigger ("[]", "list(", "(list)"): the history is made `list ()` (an empty list to _is_empty_list) with a space before the parenthesis
import torch
from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.history = list ()

    def training_step(self, batch):
        x, y = batch
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.history.append({"loss": loss.item()})
        return loss.item()
