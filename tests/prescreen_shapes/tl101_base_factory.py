# TL101 edge of loads_moved_data (_classes_holding): the Dataset's base is a call (`class Windows(base_class())`) returning the class that moves its rows; `_class_bases` keeps the base's last name, "" for a call, while `Names.class_hierarchy` resolves it
import torch
from torch.utils.data import DataLoader, Dataset


class WindowsBase(Dataset):
    def __init__(self, rows):
        self.rows = rows.cuda()

    def __getitem__(self, index):
        return self.rows[index]


def base_class():
    return WindowsBase


class Windows(base_class()):
    split = "train"


features = torch.randn(1000, 8)
loader = DataLoader(Windows(features), batch_size=64, pin_memory=True)
for batch in loader:
    print(batch.sum())
