# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): a keyword-only `ids=torch.FloatTensor(...)` default, the call passing none
import torch

emb = torch.nn.Embedding(10, 4)


def embed(*, ids=torch.FloatTensor([1, 2, 3])):
    return emb(ids)


print(embed().shape)
