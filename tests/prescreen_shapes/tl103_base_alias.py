# TL103 edge of batches_a_moved_read (loads_moved_data, _classes_holding): the Dataset that reads and moves the whole file is the base, reached through a name bound to it (`Base = ArrayBase`); `_class_bases` keeps the last name "Base", which names no class, while `Names.class_hierarchy` resolves it
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ArrayBase(Dataset):
    def __init__(self, path):
        self.rows = torch.from_numpy(np.load(path)).cuda()

    def __getitem__(self, index):
        return self.rows[index]


Base = ArrayBase


class TrainArrays(Base):
    split = "train"


loader = DataLoader(TrainArrays("train.npy"), batch_size=64)
for batch in loader:
    print(batch.sum())
