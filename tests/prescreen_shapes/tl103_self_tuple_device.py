# TL103 edge of _moves (batches_a_moved_read's moves): `self.where, self.n = "cuda", 100` unpacked onto attributes
import numpy as np
import torch


class Trainer:
    def __init__(self, path):
        self.where, self.n = "cuda", 100
        self.X = torch.from_numpy(np.load(path)).to(self.where)

    def fit(self, bs):
        for i in range(0, self.n, bs):
            xb = self.X[i:i + bs]
            print(xb.sum())
