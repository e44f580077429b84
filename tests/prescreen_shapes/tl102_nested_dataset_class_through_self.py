# TL102 edge of loads_moved_data: a nested Dataset class built as `self.Windows(rows=FEATURES)`: the screen reads no argument of a method call, and no call fills `__init__`'s parameters
import torch
from torch.utils.data import DataLoader, Dataset

FEATURES = torch.randn(64, 3).cuda()


class Pipeline:
    class Windows(Dataset):
        def __init__(self, rows):
            self.rows = rows

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            return self.rows[i]

    def loader(self):
        return DataLoader(self.Windows(rows=FEATURES), batch_size=8, num_workers=2)


for xb in Pipeline().loader():
    print(xb.shape)
