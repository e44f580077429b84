# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `torch.tensor(..., dtype=torch.DoubleTensor)`, a tensor type as the dtype keyword
import torch
import torch.nn.functional as F

logits = torch.randn(4, 10)
labels = torch.tensor([1, 2, 3, 4], dtype=torch.DoubleTensor)
loss = F.cross_entropy(logits, labels)
