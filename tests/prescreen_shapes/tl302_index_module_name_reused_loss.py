# TL302 edge of TreeFacts._follow_import_aliases (_index_modules): one local name `module` bound to an `nn.Embedding` in one function and to an `nn.CrossEntropyLoss` in another; the map keeps one index position per name, so the loss's float target is never read
import torch
import torch.nn as nn


def embed(ids):
    module = nn.Embedding(10, 4)
    return module(ids)


def loss_of(logits, labels):
    module = nn.CrossEntropyLoss()
    return module(logits, labels)


def step(rows):
    labels = torch.tensor(rows, dtype=torch.float32)
    logits = embed(torch.tensor(rows, dtype=torch.long)).sum(-1)
    return loss_of(logits, labels)
