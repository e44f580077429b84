# TL302 edge of TreeFacts._follow_import_aliases (_index_modules): one local name `module` bound to an `nn.CrossEntropyLoss` in one function and to an `nn.Embedding` in another; the map keeps one index position per name, so the embedding's float input is never read
import torch
import torch.nn as nn


def loss_of(logits, labels):
    module = nn.CrossEntropyLoss()
    return module(logits, labels)


def embed(ids):
    module = nn.Embedding(10, 4)
    return module(ids)


def step(rows):
    labels = torch.tensor(rows, dtype=torch.long)
    logits = embed(torch.tensor(rows, dtype=torch.float32)).sum(-1)
    return loss_of(logits, labels)
