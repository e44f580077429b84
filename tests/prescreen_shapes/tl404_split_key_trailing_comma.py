# TL404 edge of trigger _HELD_OUT_LOADER: the loader is `loaders["val",]`, a subscript whose one element carries a trailing comma; iterates_held_out_data reads `iterable.slice[0]` (one element, the string "val"), while the third pattern wants `]` (or `)`/space) right after the closing quote
import torch
from torch import nn
from torch.utils.data import DataLoader


def validate(model: nn.Module, loaders: dict, device: torch.device) -> float:
    correct = total = 0
    for images, labels in loaders["val",]:
        preds = model(images.to(device)).argmax(dim=1)
        correct += (preds == labels.to(device)).sum().item()
        total += labels.numel()
    return correct / max(total, 1)
