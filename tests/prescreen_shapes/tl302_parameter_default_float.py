# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): `def embed(ids=torch.FloatTensor(...))` called with no argument (argument_for gives the default)
import torch

emb = torch.nn.Embedding(10, 4)


def embed(ids=torch.FloatTensor([1, 2, 3])):
    return emb(ids)


print(embed().shape)
