# TL302 edge of BatchQuestions.may_index_with_float (lists need takes_indices): the only sink is `E(10, 4)` with `from torch.nn import Embedding as E`
import torch
from torch.nn import Embedding as E

emb = E(10, 4)
names = ["a", "b", "c"]
i = torch.FloatTensor([1])
print(names[i], emb.weight.shape)
