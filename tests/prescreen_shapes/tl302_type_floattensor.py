# TL302 edge of TreeFacts.creates_float (_float_or_index_call): `.type(torch.FloatTensor)`, a float tensor type as the dtype (no lowercase float word)
import torch
import torch.nn as nn

embed = nn.Embedding(100, 8)
ids = torch.LongTensor([[1, 2, 3]]).type(torch.FloatTensor)
out = embed(ids)
