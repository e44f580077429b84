# TL102 edge of loads_moved_data (record_growth): a Dataset's `__getitem__` grows `self.cache` with a keyword argument (`self.cache.append(object=row.cuda())`) and returns from it; the placement's `_appended_trace` reads every argument LibCST lists, while the walk's `record_growth` keeps only positional arguments and `record_append` (which reads a keyword) only a plain-name receiver, so `(ATTRIBUTE, "cache")` holds no move
import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self, data):
        self.data = data
        self.cache = []

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        row = self.data[index]
        self.cache.append(object=row.cuda())
        return self.cache[-1]


loader = DataLoader(Rows(torch.randn(64, 8)), batch_size=16, num_workers=2)
for xb in loader:
    print(xb.shape)
