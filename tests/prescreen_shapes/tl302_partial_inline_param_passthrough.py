# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): `ids = partial(to_device, device="cpu")(torch.zeros(2, 5))`, a partial called at once (the callee is a call: no last name in `_called`), whose function returns its parameter filled there
from functools import partial

import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)


def to_device(rows, device):
    return rows.to(device)


def run():
    ids = partial(to_device, device="cpu")(torch.zeros(2, 5))
    return emb(ids)
