# TL101 edge of may_pin_a_loader (_pin_key): the pinning switch is set by an item assignment whose subscript carries a trailing comma (`opts["pin_memory",] = True`); LibCST's slice is one element whose value is the string (the placement's `_apply_dict_updates` reads the key "pin_memory"), while ast's slice is a Tuple, which `_pin_key` does not read
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = torch.randn(256, 8).to(device)
labels = torch.randint(0, 2, (256,)).to(device)

opts = {"batch_size": 32, "shuffle": True}
opts["pin_memory",] = True
loader = DataLoader(TensorDataset(features, labels), **opts)
for xb, yb in loader:
    print(xb.shape, yb.shape)
