# TL101 edge of loads_moved_data: a nested Dataset class built as `self.Windows(FEATURES)` over a moved module tensor
import torch
from torch.utils.data import DataLoader, Dataset

FEATURES = torch.randn(64, 3).cuda()


class Trainer:
    class Windows(Dataset):
        def __init__(self, data):
            self.rows = data

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            return self.rows[i]

    def loader(self):
        dataset = self.Windows(FEATURES)
        return DataLoader(dataset, batch_size=8, pin_memory=True)


for xb in Trainer().loader():
    print(xb.shape)
