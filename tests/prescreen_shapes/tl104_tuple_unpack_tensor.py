# TL104 edge of pins (may_be_true): a tensor factory pinned through a tuple-unpacked True
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

pin, size = True, 16


def buffer():
    return torch.empty(size, pin_memory=pin)
