# TL103 edge of moves_a_read_value: the reader is an instance's `__call__` (`read = Reader(); read(p)`), which the rule's `resolve_callable` follows to its returns; the screen's `may_hold` reads `read` as `Reader()`, and no (FUNCTION, "Reader") holds a read
import numpy as np
import torch


class Reader:
    def __call__(self, path):
        return np.load(path)


read = Reader()
device = "cuda"
X = torch.from_numpy(read("train.npy")).to(device)
bs = 64
for i in range(0, len(X), bs):
    print(X[i:i + bs].sum())
