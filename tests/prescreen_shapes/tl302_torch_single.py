# TL302 edge of trigger _FLOAT_TENSOR: `dtype=torch.single`, torch's alias of float32 (in FLOAT_DTYPES) that no float/double/half pattern names
import torch
import torch.nn.functional as F

logits = torch.randn(8, 5, requires_grad=True)
targets = torch.tensor([0, 3, 1, 4, 2, 2, 0, 1], dtype=torch.single)
loss = F.cross_entropy(logits, targets)
loss.backward()
