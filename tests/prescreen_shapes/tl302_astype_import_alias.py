# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `torch.from_numpy(a.astype(f4))` with `from numpy import float32 as f4`
import numpy as np
import torch
from numpy import float32 as f4

emb = torch.nn.Embedding(10, 4)
pad = torch.zeros(3, dtype=torch.long)
ids = torch.as_tensor(np.arange(3).astype(f4))
out = emb(ids)
print(out.shape, pad)
