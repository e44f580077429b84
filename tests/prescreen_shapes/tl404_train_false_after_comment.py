# TL404 edge of trigger _EVAL_MODE: `model.train(  # dropout and batch norm off` then `False)` on the next line; `_mode_set` reads the argument False, while the raw-text pass of triggered_codes meets the comment after `train(` (`[\s\\(]*` allows no `#`), and code_text, which drops it, runs only on what the raw pass kept
import torch
from torch import nn
from torch.utils.data import DataLoader


def evaluate(model: nn.Module, loader: DataLoader) -> float:
    model.train(  # dropout and batch norm in inference mode
        False
    )
    correct = total = 0
    for x, y in loader:
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total
