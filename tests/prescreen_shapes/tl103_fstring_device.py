# TL103 missed by `moves_a_read_value`: Features._may_name_a_device rejects an f-string (ast.JoinedStr) as a device, so `.to(f"cuda:{rank}")` is no move; the placement (_is_device_like: STRINGS includes FormattedString) takes it for one -> DatasetOnAccelerator reports.
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(path, rank):
    features = torch.from_numpy(np.load(path)).to(f"cuda:{rank}")
    loader = DataLoader(TensorDataset(features), batch_size=64, shuffle=True)
    for (x,) in loader:
        pass
