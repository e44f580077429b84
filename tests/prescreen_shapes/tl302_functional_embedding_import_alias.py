# TL302 edge of TreeFacts._float_or_index_call (_INDEX_FUNCTIONS by last name): `lookup(ids, weight)` with `from torch.nn.functional import embedding as lookup`
import torch
from torch.nn.functional import embedding as lookup

weight = torch.randn(10, 4)
ids = torch.FloatTensor([1, 2, 3])
out = lookup(ids, weight)
print(out.shape)
