# TL302 edge of BatchQuestions._may_be_float (Call): `encode = Encoder(); ids = encode(xs)`, whose `__call__` returns a float tensor
import torch


class Encoder:
    def __call__(self, xs):
        return torch.FloatTensor(xs)


encode = Encoder()
emb = torch.nn.Embedding(10, 4)
ids = encode([1, 2, 3])
out = emb(ids)
print(out.shape)
