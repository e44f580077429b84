# TL302 edge of may_index_with_float (_scopes): `emb(ids)` is the return annotation of a nested def, evaluated in `run` where `ids` is a float tensor (Names reads it there); the screen's `_scopes` pushes a nested def's decorators and defaults but not its `returns`, so the read falls to the module's scope, whose `ids` is a list of integers
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)
ids = [1, 2, 3]


def run():
    ids = torch.zeros(3)

    def show(x) -> emb(ids):
        return x

    return show
