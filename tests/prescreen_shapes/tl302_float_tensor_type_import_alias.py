# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `FT(ids)` with `from torch import FloatTensor as FT`, a float maker by another last name
import torch
from torch import FloatTensor as FT

emb = torch.nn.Embedding(10, 4)
pad = torch.zeros(3, dtype=torch.long)
ids = FT([1, 2, 3])
out = emb(ids)
print(out.shape, pad)
