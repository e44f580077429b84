# TL103 edge of moves_a_read_value: the reader is `Reader()(p)`, an instance's `__call__` called inline (the rule's `resolve_callable` follows it to its returns); the screen reads (FUNCTION, "Reader"), which holds no read
import numpy as np
import torch


class Reader:
    def __call__(self, path):
        return np.load(path)


device = "cuda"
X = torch.from_numpy(Reader()("train.npy")).to(device)
bs = 64
for i in range(0, len(X), bs):
    print(X[i:i + bs].sum())
