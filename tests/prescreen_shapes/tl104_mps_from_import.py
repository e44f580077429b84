# TL104 edge of pins (_may_name_mps): MPS is named only by a `from torch.backends.mps import is_available`; the rule's `_note_mps_reference` reads the name's qualified name (`torch.backends.mps.is_available`), while the screen's identifiers hold an import's alias names, never the module it imports from
import torch
from torch.backends.mps import is_available
from torch.utils.data import DataLoader, TensorDataset

on_apple = is_available()
dataset = TensorDataset(torch.randn(256, 8), torch.randn(256))
loader = DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)
for xb, yb in loader:
    print(on_apple, xb.sum(), yb.sum())
