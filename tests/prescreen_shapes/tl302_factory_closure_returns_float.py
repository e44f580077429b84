# TL302 edge of BatchQuestions._may_be_float (Call): `make = build(); ids = make(xs)`, a factory's closure returning a float tensor
import torch


def build():
    def convert(xs):
        return torch.FloatTensor(xs)

    return convert


make = build()
emb = torch.nn.Embedding(10, 4)
ids = make([1, 2, 3])
out = emb(ids)
print(out.shape)
