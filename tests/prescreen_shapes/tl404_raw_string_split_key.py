# TL404 edge of trigger _HELD_OUT_LOADER: `loaders[r"val"]` is a held-out loader to iterates_held_out_data (evaluated_value "val"), but the string prefix breaks `\[\s*["']`
import torch
from torch import nn


def validate(model: nn.Module, loaders: dict) -> float:
    correct = total = 0
    for x, y in loaders[r"val"]:
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total
