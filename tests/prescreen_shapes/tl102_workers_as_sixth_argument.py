# TL102 edge of the trigger: `num_workers` given as the DataLoader's sixth positional argument, with no such word in the text; the placement's `loader_arguments` binds it by position
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda")


class Rows(Dataset):
    def __init__(self, rows):
        self.rows = rows.to(device)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


loader = DataLoader(Rows(torch.randn(100, 3)), 32, True, None, None, 4)
for batch in loader:
    print(batch.sum())
