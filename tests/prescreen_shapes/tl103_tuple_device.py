# TL103 edge of _moves: the device bound by a tuple unpacking, `where, n = "cuda", 100` (assigned_values misses it)
import numpy as np
import torch


def main(path, bs):
    where, n = "cuda", 100
    X = torch.from_numpy(np.load(path)).to(where)
    for i in range(0, n, bs):
        xb = X[i:i + bs]
        print(xb.sum())
