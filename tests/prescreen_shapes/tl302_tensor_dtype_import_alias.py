# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `torch.tensor(..., dtype=f32)` with `from torch import float32 as f32`
import torch
from torch import float32 as f32

emb = torch.nn.Embedding(10, 4)
pad = torch.zeros(3, dtype=torch.long)
ids = torch.tensor([1, 2, 3], dtype=f32)
out = emb(ids)
print(out.shape, pad)
