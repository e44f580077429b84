# TL404 edge of trigger ".eval(": `model.eval ()` with a space before the parenthesis is eval mode to _mode_set
import torch
from torch import nn
from torch.utils.data import DataLoader


def evaluate(model: nn.Module, loader: DataLoader) -> float:
    model.eval ()
    correct = total = 0
    for x, y in loader:
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total
