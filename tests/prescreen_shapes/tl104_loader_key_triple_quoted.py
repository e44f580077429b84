# TL104 edge of trigger ("pin_memory", prefilter.code_text): the `**` dict's key is a triple-quoted string that begins its line (`"""pin_memory""": True`), which code_text drops as prose; the placement's `_keyword_dict` reads the key's value "pin_memory"
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"

loader_options = {
    """batch_size""": 32,
    """pin_memory""": True,
}

dataset = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
loader = DataLoader(dataset, **loader_options)
model = torch.nn.Linear(4, 1).to(device)
for xb, yb in loader:
    loss = (model(xb.to(device)) - yb.to(device)).pow(2).mean()
    loss.backward()
