# TL302 edge of trigger _FLOAT_TENSOR: `torch.Tensor.float(raw)`, the float cast called unbound with the tensor as its argument (the trigger knows only `.float()` with empty parentheses)
import torch
import torch.nn as nn

embed = nn.Embedding(50, 4)
raw = torch.arange(6).view(2, 3)
ids = torch.Tensor.float(raw)
vectors = embed(ids)
