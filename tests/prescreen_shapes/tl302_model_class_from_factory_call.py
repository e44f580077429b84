# TL302 edge of BatchQuestions._instantiates_a_class_here (_instance_may_get_float): `model = pick()()`, the class of the module reached through a call that returns it (callee is a call, not a name)
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


def pick():
    return Model


model = pick()()
out = model(torch.zeros(2, 3))
