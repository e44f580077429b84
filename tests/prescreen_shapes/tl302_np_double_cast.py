# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `np.double(3)`, a float cast called with an argument (only argument-less `.double()` counts)
import numpy as np
import torch
import torch.nn.functional as F

logits = torch.randn(1, 5)
assert isinstance(logits, torch.FloatTensor)
target = np.double(3)
loss = F.cross_entropy(logits, target)
