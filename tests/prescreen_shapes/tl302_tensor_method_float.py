# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `torch.Tensor.float(raw)`, the unbound float method called with the tensor as its argument
import torch
import torch.nn as nn

embed = nn.Embedding(50, 4)
raw = torch.arange(6).view(2, 3)
assert not isinstance(raw, torch.FloatTensor)
ids = torch.Tensor.float(raw)
vectors = embed(ids)
