# TL104 edge of trigger ("pin_memory"): the DataLoader's pinning comes from a `**` dict whose key is an implicit concatenation (`"pin_" "memory"`); the placement's `_keyword_dict` reads keys with `string_value` (LibCST's evaluated value, concatenations and escapes joined), while the text never holds "pin_memory"
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"

LOADER_OPTIONS = {
    "batch_size": 32,
    "shuffle": True,
    "pin_" "memory": True,
}

dataset = TensorDataset(torch.randn(512, 8), torch.randint(0, 2, (512,)))
loader = DataLoader(dataset, **LOADER_OPTIONS)
model = torch.nn.Linear(8, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for xb, yb in loader:
    xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
