# TL302 edge of BatchQuestions._may_be_numpy_float: `torch.from_numpy(read("labels.txt"))` with `from numpy import loadtxt as read`, NumPy's float reader under another name
import torch
import torch.nn.functional as F
from numpy import loadtxt as read

logits = torch.randn(4, 10)
targets = torch.from_numpy(read("labels.txt"))
loss = F.cross_entropy(logits, targets)
