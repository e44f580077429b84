# TL302 edge of BatchQuestions._instantiates_a_class_here (_instance_may_get_float): `model = functools.partial(Model, 4)()`, a partial of the class called at once (callee is a call)
import functools
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.emb = nn.Embedding(10, dim)

    def forward(self, x):
        return self.emb(x)


model = functools.partial(Model, 4)()
out = model(torch.zeros(2, 3))
