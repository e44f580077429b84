# TL104 edge of pins (may_be_true): `*rest, pin = 1, 2, True` pairs pin with the tail element
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
*rest, pin = 1, 2, True


def buffer():
    return torch.zeros(len(rest), pin_memory=pin)
