# TL302 may_index_with_float misses: batches._iteration_may_be_float reads only positional ast args, so DataLoader(dataset=TensorDataset(ids, ...)) is 'no arguments' and falls to _may_be_float(call) -> False; the rule's _iterated_source takes libcst's first Arg (a keyword too) as the data set; reported by FloatIndexTensors._iterated_source -> TENSOR_DATASETS -> torch.zeros
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ids = torch.zeros(100, 16)
for i, row in enumerate(open("tokens.txt")):
    ids[i, : len(row.split())] = torch.tensor([int(t) for t in row.split()])
labels = torch.randint(0, 2, (100,))
loader = DataLoader(dataset=TensorDataset(ids, labels), batch_size=8, shuffle=True)
emb = nn.Embedding(1000, 32)
for x, y in loader:
    out = emb(x)
