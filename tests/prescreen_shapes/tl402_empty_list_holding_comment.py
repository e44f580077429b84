# TL402 edge of trigger (the list part): the history is made by a bracket pair holding only a comment line, an empty cst.List to _is_empty_list; the raw-text pass of triggered_codes sees the comment between the brackets (the empty-pair substring and `\[[\s\\]+\]` both fail at `#`), and code_text, which would drop it, runs only on what the raw pass kept
import torch
from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.history = [
            # one record per optimizer step: loss and learning rate
        ]

    def training_step(self, batch):
        x, y = batch
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.history.append({"loss": loss.item(), "lr": self.optimizer.param_groups[0]["lr"]})
        return loss.item()
