# TL302 edge of TreeFacts._float_or_index_call (_INDEX_FUNCTIONS by last name): `xent(logits, y)` with `from torch.nn.functional import cross_entropy as xent`
import torch
from torch.nn.functional import cross_entropy as xent

logits = torch.randn(3, 5)
y = torch.FloatTensor([1, 2, 3])
loss = xent(logits, y)
print(loss.item())
