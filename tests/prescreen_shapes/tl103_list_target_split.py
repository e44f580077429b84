# TL103 edge of batches_a_moved_read: the device through a name bound from a list unpacking, `[where, n] = ["cuda", 4]`, then `.split`
import numpy as np
import torch

device = "cuda"


def main(path):
    [where, n] = ["cuda", 4]
    target = where
    Y = torch.from_numpy(np.load(path)).to(device)
    print(Y.mean())
    X = torch.from_numpy(np.load(path)).to(target)
    for part in X.split(n):
        print(part.sum())
