# TL302 edge of BatchQuestions._factory_may_make_float: `torch.from_numpy(*arrays)`, the array starred (LibCST's `args[0].value` is the name `arrays`, a float NumPy array), read by `_may_be_numpy_float` as a Starred node
import numpy as np
import torch
import torch.nn as nn

emb = nn.Embedding(100, 8)
arrays = np.ones((1, 2, 5))
ids = torch.from_numpy(*arrays)
out = emb(ids)
