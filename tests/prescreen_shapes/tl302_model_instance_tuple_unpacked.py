# TL302 edge of BatchQuestions._instance_may_get_float (_plain_values): `model, extra = Model(4)`, a tuple target bound to a class call (the rule's `_forward_of_instance` takes a binding's whole value, whatever its path), so `model(ids)` reaches `forward`'s embedding
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.emb = nn.Embedding(10, dim)

    def forward(self, ids):
        return self.emb(ids)

    def __iter__(self):
        return iter((self, self.emb))


def train():
    model, extra = Model(4)
    ids = torch.zeros(2, 5)
    return model(ids)
