# TL302 edge of BatchQuestions._instantiates_a_class_here (_instance_may_get_float): `model = self.cls()` with `self.cls = Model`, the class called through an attribute
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


class Runner:
    def __init__(self):
        self.cls = Model

    def run(self):
        model = self.cls()
        return model(torch.zeros(2, 3))
