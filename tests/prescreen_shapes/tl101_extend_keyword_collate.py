# TL101 edge of loads_moved_data (record_growth): a collate growing its list with a keyword argument to `extend` (`parts.extend(iterable=[...])`); the placement's `_appended_trace` reads every argument LibCST lists (a keyword too), while the walk's `record_growth` keeps only `call.args` and `record_append` reads keywords only for `append`
import torch
from torch.utils.data import DataLoader, TensorDataset


def collate(batch):
    parts = []
    parts.extend(iterable=[features.cuda() for features, _ in batch])
    return parts


dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(dataset, batch_size=16, collate_fn=collate, pin_memory=True)
for xb in loader:
    print(len(xb))
