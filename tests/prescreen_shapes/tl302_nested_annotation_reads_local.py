# TL302 edge of may_index_with_float (_scopes): `emb(ids)` is an annotation of a nested def, which Python evaluates in `run` (Names reads it there, where `ids` is a float tensor); the screen's `_scopes` walks a nested def's decorators and defaults but not its annotations, so the read falls to the module's scope, whose `ids` is a list of integers
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)
ids = [1, 2, 3]


def run():
    ids = torch.zeros(3)

    def show(x: emb(ids) = None):
        return x

    return show
