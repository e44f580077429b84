# TL104 edge of pins (_may_take_pin_memory): one alias bound by two imports (try/except); the rule's import table keeps the last in source order (torch's DataLoader), the walk's `_aliases` the first (it visits siblings in reverse)
import torch
from torch.utils.data import TensorDataset

try:
    from fastloader import FastLoader as Loader
except ImportError:
    from torch.utils.data import DataLoader as Loader

device = "cuda" if torch.cuda.is_available() else "cpu"
X = torch.randn(100, 8)
y = torch.randn(100, 1)
loader = Loader(TensorDataset(X, y), batch_size=16, pin_memory=True)
for xb, yb in loader:
    xb, yb = xb.to(device), yb.to(device)
