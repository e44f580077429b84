# TL302 edge of BatchQuestions._local_bindings_may_be_float (scoped_values): a walrus in a lambda inside `run` binds `ids` in the lambda's own scope, which the walk records as `run`'s binding, so `emb(ids)` in `run` is judged by `[1, 2]` alone while it reads the module's float `ids`
import torch
import torch.nn as nn

emb = nn.Embedding(100, 8)
ids = torch.zeros(2, 5)


def run():
    reset = lambda: (ids := [1, 2])
    return emb(ids), reset
