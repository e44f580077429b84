# TL302 edge of BatchQuestions._may_be_float (Call): `make = partial(to_ids, ...)`, a helper returning a float tensor called through a partial
from functools import partial

import torch


def to_ids(xs, scale):
    print(scale)
    return torch.FloatTensor(xs)


make = partial(to_ids, scale=1)
emb = torch.nn.Embedding(10, 4)
ids = make([1, 2, 3])
out = emb(ids)
print(out.shape)
