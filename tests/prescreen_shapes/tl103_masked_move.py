# TL103 edge of batches_a_moved_read: a move the screen follows (unbound) masks the bound, sliced one it misses (`.to(where)`, `where, n = "cuda", 100`)
import numpy as np
import torch

device = "cuda"


def main(path, bs):
    where, n = "cuda", 100
    Y = torch.from_numpy(np.load(path)).to(device)
    print(Y.mean())
    X = torch.from_numpy(np.load(path)).to(where)
    for i in range(0, n, bs):
        xb = X[i:i + bs]
        print(xb.sum())
