# TL405 edge of trigger ("backward", _OPTIMIZER_STEP): the optimizer stepped is parenthesised, `(opt).step()`; `_optimizer_step_owner` reads the Name through its parentheses (`opt`), while `_OPTIMIZER_STEP` needs `.step(` right after the name (or its brackets), and no "optim" is in the text for the second trigger. Contrived
import torch
from torch import nn

from project.training import build_opt


def train(model: nn.Module, loader, epochs: int = 3) -> None:
    opt = build_opt(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for inputs, targets in loader:
            loss = criterion(model(inputs), targets)
            loss.backward()
            (opt).step()
    torch.save(model.state_dict(), "model.pt")
