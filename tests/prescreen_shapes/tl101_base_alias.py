# TL101 edge of loads_moved_data (_classes_holding): the Dataset's base is a name bound to the class that moves its rows (`Base = WindowsBase`); `_class_bases` keeps the base's last name, which names no class, while `Names.class_hierarchy` resolves it
import torch
from torch.utils.data import DataLoader, Dataset


class WindowsBase(Dataset):
    def __init__(self, rows):
        self.rows = rows.cuda()

    def __getitem__(self, index):
        return self.rows[index]


Base = WindowsBase


class Windows(Base):
    split = "train"


features = torch.randn(1000, 8)
loader = DataLoader(Windows(features), batch_size=64, pin_memory=True)
for batch in loader:
    print(batch.sum())
