# TL302 edge of TreeFacts._comprehension_scope (counted reads) for may_index_with_float: `[emb(t) for t in range(2) for t in rows]`, a later generator rebinds the counter's name to float rows
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)
rows = torch.zeros(3, 5)
outs = [emb(t) for t in range(2) for t in rows]
