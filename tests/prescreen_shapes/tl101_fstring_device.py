# TL101 missed by `loads_moved_data`: Features._may_name_a_device takes only a str Constant for a string, not an f-string (ast.JoinedStr), so `.to(f"cuda:{rank}")` is no move; placement._is_device_like takes any STRINGS (FormattedString too) -> PinMemoryDeviceTensors reports.
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(X, y, rank=0):
    dataset = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))

    def collate(samples):
        inputs = torch.stack([s[0] for s in samples]).to(f"cuda:{rank}")
        targets = torch.stack([s[1] for s in samples]).to(f"cuda:{rank}")
        return inputs, targets

    loader = DataLoader(dataset, batch_size=32, collate_fn=collate, pin_memory=True)
    for inputs, targets in loader:
        pass
