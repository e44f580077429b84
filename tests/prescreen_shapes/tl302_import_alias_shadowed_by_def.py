# TL302 edge of BatchQuestions._may_be_float (Call): `make_ids(rows)` where `make_ids` is both an import alias (`from fastops import to_ids as make_ids`) and a fallback def returning a float tensor
import torch
import torch.nn as nn

try:
    from fastops import to_ids as make_ids
except ImportError:
    def make_ids(rows):
        return torch.tensor(rows, dtype=torch.float32)

emb = nn.Embedding(100, 8)
ids = make_ids([[1, 2, 3]])
out = emb(ids)
