# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): `ids = mover("cpu")(torch.ones(2, 5))`, a factory's closure called at once (the callee is a call: no last name in `_called`), the closure returning its parameter filled there
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)


def mover(device):
    def move(rows):
        return rows.to(device)

    return move


def run():
    ids = mover("cpu")(torch.ones(2, 5))
    return emb(ids)
