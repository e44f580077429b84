# TL102 edge of trigger ("num_workers"): the workers come from `dict(...)` over a display whose key is an implicit concatenation (`"num_" "workers"`); the placement's `_keyword_dict` reads it with `string_value` (evaluated: "num_workers"), while the text never holds "num_workers"
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, series, width, device):
        self.series = series
        self.width = width
        self.device = device

    def __len__(self):
        return len(self.series) - self.width

    def __getitem__(self, index):
        window = self.series[index:index + self.width]
        return window.to(self.device), self.series[index + self.width].to(self.device)


device = torch.device("cuda")
options = dict({"batch_size": 32, "num_" "workers": 4})
loader = DataLoader(Windows(torch.randn(10_000), 24, device), **options)
for xb, yb in loader:
    print(xb.shape, yb.shape)
