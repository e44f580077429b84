# TL302 edge of BatchQuestions._given_dtype/_dtype_name: `.type(dtype="torch.DoubleTensor")`, a dotted string dtype read whole (the rule takes its last part)
import torch
import torch.nn.functional as F

logits = torch.zeros(4, 10)
labels = torch.tensor([1, 2, 3, 4]).type(dtype="torch.DoubleTensor")
loss = F.cross_entropy(logits, labels)
