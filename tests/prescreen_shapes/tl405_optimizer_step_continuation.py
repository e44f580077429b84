# TL405 edge of trigger ("backward", _OPTIMIZER_STEP): `opt \` + newline + `.step()` is a named optimizer step, the backslash is no `\s`, and no "optim" is in the text for the second trigger
from torch import nn
from torch.utils.data import DataLoader


def train(model: nn.Module, opt, loader: DataLoader, loss_fn: nn.Module, epochs: int = 1) -> None:
    for epoch in range(epochs):
        for x, y in loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            opt \
                .step()
