# TL302 edge of trigger _FLOAT_TENSOR: `from torch import Tensor as T` then `T(ids)`, the float32 constructor under another name (no `Tensor(` in the text)
import torch.nn.functional as F
from torch import Tensor as T
from torch import randn

logits = randn(4, 10, requires_grad=True)
targets = T([3, 1, 0, 7])
loss = F.cross_entropy(logits, targets)
loss.backward()
