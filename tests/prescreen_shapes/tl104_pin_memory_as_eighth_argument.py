# TL104 edge of the trigger: `pin_memory=True` given as the DataLoader's eighth positional argument in code that selects the CPU; the word `pin_memory` is nowhere in the text
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cpu")


class Rows(Dataset):
    def __init__(self, rows):
        self.rows = rows.to(device)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


loader = DataLoader(Rows(torch.randn(100, 3)), 32, True, None, None, 0, None, True)
for batch in loader:
    print(batch.sum())
