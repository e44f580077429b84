# TL103 edge of batches_a_moved_read (loads_moved_data): the loader's move `.to(where)` (tuple-bound device) is not one the screen sees; another, unbatched move masks it
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(path, labels_path):
    where, batch_size = "cuda", 64
    y_all = torch.from_numpy(np.load(labels_path)).cuda()
    print(y_all.float().mean())
    X = torch.from_numpy(np.load(path)).to(where)
    loader = DataLoader(TensorDataset(X), batch_size=batch_size)
    for (xb,) in loader:
        print(xb.sum())
