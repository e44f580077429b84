# TL101 edge of trigger ("pin_memory"): the loader's pinning is set by an item assignment whose key is written with an escape (`"pin\x5fmemory"`); the placement's `_apply_dict_updates` reads the key's evaluated value ("pin_memory"), while the text never holds "pin_memory"
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")

features = torch.randn(1024, 16).to(device)
labels = torch.randint(0, 4, (1024,)).to(device)

loader_kwargs = {"batch_size": 64, "shuffle": True}
loader_kwargs["pin\x5fmemory"] = True
loader = DataLoader(TensorDataset(features, labels), **loader_kwargs)

model = torch.nn.Linear(16, 4).to(device)
optimizer = torch.optim.Adam(model.parameters())
for xb, yb in loader:
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
