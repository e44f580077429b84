# TL104 edge of pins (may_be_true): `self.pin, self.n = True, 2` then a DataLoader pinning self.pin
import torch
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.pin, self.n = True, 2

    def loader(self):
        return DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=self.n, pin_memory=self.pin)
