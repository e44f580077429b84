# TL302 edge of BatchQuestions._local_bindings_may_be_float (scoped_values): a class body inside `run` binds `ids = [1, 2]` (a class attribute, its own scope), which the walk records as `run`'s own binding, so `emb(ids)` in `run` is judged by it alone while it reads the module's float `ids`
import torch
import torch.nn as nn

emb = nn.Embedding(100, 8)
ids = torch.zeros(2, 5)


def run():
    class Config:
        ids = [1, 2]

    return emb(ids), Config
