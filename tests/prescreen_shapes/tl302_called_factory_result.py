# TL302 edge of BatchQuestions._may_be_float (Call): `ids = padder(8)(rows)`, a factory's closure called at once (the callee is a call: no last name)
import torch
import torch.nn as nn


def padder(length):
    def pad(rows):
        out = torch.zeros(len(rows), length)
        for i, row in enumerate(rows):
            out[i, : len(row)] = torch.tensor(row)
        return out

    return pad


embed = nn.Embedding(100, 16)
rows = [[5, 6, 7], [8, 9]]
ids = padder(8)(rows)
vectors = embed(ids)
