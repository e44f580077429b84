# TL302 edge of BatchQuestions._instantiates_a_class_here (_instance_may_get_float): `model = (lambda: Model)()()`, the class returned by a lambda called at once
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


model = (lambda: Model)()()
out = model(torch.zeros(2, 3))
