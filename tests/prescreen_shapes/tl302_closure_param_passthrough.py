# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): `shift = mover(); ids = shift(torch.ones(2, 5))`, a factory's closure whose parameter is filled through another name
import torch
import torch.nn.functional as F


def mover(device="cpu"):
    def move(batch):
        return batch.to(device)

    return move


weight = torch.randn(100, 8)
shift = mover()
ids = shift(torch.ones(2, 5))
vectors = F.embedding(ids, weight)
