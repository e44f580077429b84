# TL101 edge of loads_moved_data (_may_name_a_device): the device bound by a tuple unpacking, `where, bs = "cuda", 64`
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(path):
    where, bs = "cuda", 64
    X = torch.from_numpy(np.load(path)).to(where)
    loader = DataLoader(TensorDataset(X), batch_size=bs, pin_memory=True)
    for (xb,) in loader:
        print(xb.sum())
