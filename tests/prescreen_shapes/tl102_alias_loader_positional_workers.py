# TL102 edge of may_fork_workers: the loader is called under an import alias (`DL`) with `num_workers` as its sixth positional argument; `_workers_call` counts six positional arguments only for a callee named `DataLoader`
import torch
from torch.utils.data import DataLoader as DL, TensorDataset

device = "cuda"
num_workers = 4
X = torch.randn(1000, 8).to(device)
y = torch.randn(1000).to(device)
loader = DL(TensorDataset(X, y), 64, True, None, None, num_workers)
for xb, yb in loader:
    print(xb.sum(), yb.sum())
