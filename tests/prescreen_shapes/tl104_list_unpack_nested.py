# TL104 edge of pins (may_be_true): nested list unpacking `[a, [pin, b]] = [1, [True, 2]]`
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

[a, [pin, b]] = [1, [True, 2]]


def buffer():
    return torch.zeros(a + b, pin_memory=pin)
