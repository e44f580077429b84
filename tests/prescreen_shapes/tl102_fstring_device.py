# TL102 missed by `loads_moved_data` (and TL101 with it): Features._may_name_a_device rejects an f-string (ast.JoinedStr) device, so the Dataset's `self.X = X.to(f"cuda:{rank}")` is no move; placement._is_device_like accepts FormattedString -> DeviceDatasetInWorkers reports.
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, X, rank):
        self.X = torch.from_numpy(X).float().to(f"cuda:{rank}")

    def __len__(self):
        return len(self.X)

    def __getitem__(self, idx):
        return self.X[idx]


def main(X, rank=0):
    loader = DataLoader(Windows(X, rank), batch_size=32, num_workers=4)
    for batch in loader:
        pass
