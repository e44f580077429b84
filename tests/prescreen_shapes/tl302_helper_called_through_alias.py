# TL302 edge of BatchQuestions._may_be_float (Call): `make = to_ids; ids = make(xs)`, a helper returning a float tensor called by another name
import torch


def to_ids(xs):
    return torch.FloatTensor(xs)


make = to_ids
emb = torch.nn.Embedding(10, 4)
ids = make([1, 2, 3])
out = emb(ids)
print(out.shape)
