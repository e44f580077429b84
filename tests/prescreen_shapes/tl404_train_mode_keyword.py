# TL404 edge of trigger ".train(False": `model.train(mode=False)` is eval mode to _mode_set (args[0] is the keyword argument False)
import torch
from torch import nn
from torch.utils.data import DataLoader


def evaluate(model: nn.Module, loader: DataLoader) -> float:
    model.train(mode=False)
    correct = total = 0
    for x, y in loader:
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total
