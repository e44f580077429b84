# TL302 edge of trigger _FLOAT_TENSOR: `np.array(ids, dtype="float32")` handed to `torch.tensor`, a float dtype given as a string (the `dtype=` pattern stops at the quote)
import numpy as np
import torch
from torch import nn

rows = [[101, 2023, 2003, 102], [101, 2178, 6251, 102]]
ids = torch.tensor(np.array(rows, dtype="float32"))
embedding = nn.Embedding(30522, 64)
hidden = embedding(ids)
