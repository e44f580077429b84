# TL104 edge of pins (_pin_key): the loader's pinning is set by an item assignment whose subscript carries a trailing comma (`opts["pin_memory",] = True`); LibCST's slice is one element holding the string, which the placement's `_apply_dict_updates` reads as the key "pin_memory", while ast's slice is a Tuple, which `_pin_key` does not read; the module selects the CPU
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
opts = {"batch_size": 32, "shuffle": True}
opts["pin_memory",] = True
loader = DataLoader(TensorDataset(torch.randn(64, 4)), **opts)
model = torch.nn.Linear(4, 1).to(device)
for (xb,) in loader:
    model(xb.to(device)).sum().backward()
