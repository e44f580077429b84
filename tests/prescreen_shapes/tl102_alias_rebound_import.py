# TL102 edge of loads_moved_data (calls_dataloader): one alias bound by two imports (try/except); the rule's import table keeps the last in source order (torch's DataLoader), the walk's `_aliases` the first (it visits siblings in reverse)
import torch
from torch.utils.data import TensorDataset

try:
    from fastloader import FastLoader as Loader
except ImportError:
    from torch.utils.data import DataLoader as Loader

device = "cuda"
X = torch.randn(100, 8).to(device)
y = torch.randn(100, 1).to(device)
loader = Loader(TensorDataset(X, y), batch_size=16, num_workers=4)
for xb, yb in loader:
    print(xb.shape, yb.shape)
