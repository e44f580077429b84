# TL302 edge of TreeFacts._follow_import_aliases (_index_modules): `self.tok = nn.Embedding(10, 4)` in a module that also imports `from textlayers import PositionalEmbedding as Embedding`; the import alias is applied to the last name of an attribute callee, so `nn.Embedding` is read as `PositionalEmbedding` and `self.tok` takes no indices
import torch
import torch.nn as nn
from textlayers import PositionalEmbedding as Embedding


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(10, 4)
        self.pos = Embedding(16, 4)

    def encode(self, rows):
        ids = torch.tensor(rows, dtype=torch.float32)
        return self.tok(ids) + self.pos(ids)
