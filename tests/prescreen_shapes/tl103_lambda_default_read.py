# TL103 edge of moves_a_read_value (may_hold): the read is a lambda parameter's default (`lambda batch, data=np.load(p): ...`), which the rule's `_values_of` follows (Names.bound_value gives a parameter its default) but the screen records a lambda's parameters as opaque, with no value
import numpy as np
import torch
from torch.utils.data import DataLoader

device = "cuda"
indices = list(range(1000))

loader = DataLoader(
    indices,
    batch_size=64,
    collate_fn=lambda batch, data=np.load("features.npy"): torch.from_numpy(data).cuda()[batch],
)

for batch in loader:
    print(batch.shape)
