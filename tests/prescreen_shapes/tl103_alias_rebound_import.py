# TL103 edge of moves_a_read_value (_reads_a_file): one alias bound by two imports (try/except); the rule's import table keeps the last in source order (numpy's load), the walk's `_aliases` the first (it visits siblings in reverse)
import numpy as np
import torch

try:
    from fastnpy import load_array as read_array
except ImportError:
    from numpy import load as read_array

device = "cuda"
stats = np.load("stats.npy")
X = torch.from_numpy(read_array("train.npy")).to(device)
bs = 64
for i in range(0, len(X), bs):
    xb = (X[i:i + bs] - stats[0]) / stats[1]
    print(xb.sum())
