# TL302 edge of trigger _FLOAT_TENSOR: `torch.as_tensor(np.loadtxt(path))`, NumPy's float64 reader (a float source the rule knows by name, NUMPY_FLOAT_DEFAULTS) with no float word in the text
import numpy as np
import torch
from torch import nn

tokens = torch.as_tensor(np.loadtxt("tokens.txt"))
embedding = nn.Embedding(30000, 128)
projection = nn.Linear(128, 17)
scores = projection(embedding(tokens))
