# TL104 edge of pins (may_be_true): `pin, workers = True, 4` unpacks True into pin, the screen records no value for a tuple target
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
pin, workers = True, 4


def make_loader():
    data = TensorDataset(torch.randn(8, 2))
    return DataLoader(data, batch_size=4, num_workers=workers, pin_memory=pin)
