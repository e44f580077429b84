# TL302 edge of BatchQuestions._may_be_numpy_float: `torch.from_numpy(nz(3))` with `from numpy import zeros as nz`, a NumPy float default under another name (the rule's qualified name is numpy.zeros)
import torch
import torch.nn as nn
from numpy import zeros as nz

emb = nn.Embedding(10, 4)
ids = torch.from_numpy(nz((2, 3)))
out = emb(ids)
