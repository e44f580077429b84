# TL401 edge of _dies_with_its_call: an append in a class body inside training_step keeps the step's local list; the class body is its own scope to the rule, whose storage is no local of it
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        kept = []
        loss = self.net(batch).pow(2).mean()

        class Snapshot:
            kept.append(loss)

        self.manual_backward(loss)
        return loss
