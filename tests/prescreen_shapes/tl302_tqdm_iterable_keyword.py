# TL302 may_index_with_float misses: batches._iteration_may_be_float ignores keyword arguments: tqdm(iterable=ids) has no ast args, so the wrapper is not looked through; the rule's _iterated_source takes the first libcst Arg (iterable=ids) of a WRAPPERS_KEEPING_ITEMS call (tqdm.tqdm) and finds the float rows of torch.zeros
import torch
from torch import nn
from tqdm import tqdm

ids = torch.zeros(100, 16)
for i, row in enumerate(open("tokens.txt")):
    ids[i, : len(row.split())] = torch.tensor([int(t) for t in row.split()])
emb = nn.Embedding(1000, 32)
for x in tqdm(iterable=ids, desc="embed"):
    out = emb(x)
