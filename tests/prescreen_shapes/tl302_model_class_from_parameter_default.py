# TL302 edge of BatchQuestions._instantiates_a_class_here (_instance_may_get_float): `model = model_cls()` with `model_cls=Model` a parameter default (resolve_callable follows a parameter to its default), the callee a plain name neither a class nor assigned
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, x):
        return self.emb(x)


def train(model_cls=Model):
    model = model_cls()
    ids = torch.zeros(2, 5)
    return model(ids)


train()
