# TL302 edge of BatchQuestions._factory_may_make_float: `torch.tensor(*packed)`, the data starred (LibCST's `args[0].value` is the name `packed`, a float NumPy array), which `_may_be_numpy_float` reads as a Starred node (neither name nor call)
import numpy as np
import torch
import torch.nn as nn

emb = nn.Embedding(100, 8)
packed = np.zeros((1, 2, 5))
ids = torch.tensor(*packed)
out = emb(ids)
