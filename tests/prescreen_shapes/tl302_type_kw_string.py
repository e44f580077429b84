# TL302 edge of TreeFacts.creates_float and BatchQuestions._dtype_name: `.type(dtype="torch.HalfTensor")`, a tensor type named by a dotted string keyword (no lowercase float word; the string read whole)
import torch
import torch.nn as nn

embed = nn.Embedding(100, 8)
ids = torch.LongTensor([[1, 2, 3]]).type(dtype="torch.HalfTensor")
out = embed(ids)
