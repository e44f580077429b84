# TL401 edge of trigger ("backward", "training_step"): the loop trains by `optimizer.step()` (steps_training) after `torch.autograd.grad`; no `backward` in the text
import torch
from torch import nn
from torch.utils.data import DataLoader


def train(model: nn.Module, loader: DataLoader, epochs: int = 3) -> None:
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    params = [p for p in model.parameters() if p.requires_grad]
    for epoch in range(epochs):
        running_loss = 0.0
        for x, y in loader:
            loss = criterion(model(x), y)
            grads = torch.autograd.grad(loss, params)
            for p, g in zip(params, grads):
                p.grad = g
            optimizer.step()
            running_loss += loss
        print(epoch, running_loss / len(loader))
