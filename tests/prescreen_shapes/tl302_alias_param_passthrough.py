# TL302 edge of BatchQuestions._local_bindings_may_be_float (parameter): `make = to_device; ids = make(torch.zeros(2, 5))`, the helper's parameter filled through another name
import torch
import torch.nn as nn

device = torch.device("cpu")
embed = nn.Embedding(100, 8)


def to_device(seq):
    return seq.to(device)


make = to_device
ids = make(torch.zeros(2, 5))
out = embed(ids)
