# TL402 edge of _may_start_once: a class body's `losses = None` is no module binding of `losses`
import torch
from dataclasses import dataclass


@dataclass
class TrainState:
    step: int = 0
    losses: list = None


model, loader, optimizer = torch.load("setup.pt")
losses = []
for epoch in range(10):
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        losses.append(x.detach())
