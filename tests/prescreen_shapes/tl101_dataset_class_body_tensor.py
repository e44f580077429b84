# TL101 missed by `loads_moved_data`: `self.X` in `__getitem__` reads the class body's `X = ...` (`Names.attribute_bindings`), which the screen did not store as an attribute.
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    X = torch.zeros(100, 3).to("cuda")

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        return self.X[i]


def main():
    loader = DataLoader(Windows(), batch_size=32, pin_memory=True)
    for x in loader:
        pass
