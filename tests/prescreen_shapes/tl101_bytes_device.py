# TL101 edge of loads_moved_data (_moves, _may_name_a_device): the device is a bytes literal (`.to(b"cuda")`); the placement's `_is_device_like` takes any LibCST string node (STRINGS: SimpleString holds bytes too) and `is_provably_cpu` cannot read bytes, so it is a move; the screen's `_may_name_a_device` takes only a str Constant
import torch
from torch.utils.data import DataLoader, Dataset

TARGET = b"cuda"


class Windows(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        return self.rows[index].to(TARGET)


loader = DataLoader(Windows(torch.randn(64, 8)), batch_size=8, pin_memory=True)
for batch in loader:
    print(batch.shape)
