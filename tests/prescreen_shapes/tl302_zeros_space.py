# TL302 edge of trigger _FLOAT_TENSOR: `torch.zeros (batch, length)`, a shaped factory with a space before its parenthesis (the `zeros\(` pattern needs it adjacent)
import torch
from torch import nn

sequences = [[5, 8, 2], [7, 1], [4, 4, 4, 9]]
length = max(len(s) for s in sequences)
padded = torch.zeros (len(sequences), length)
for row, sequence in enumerate(sequences):
    padded[row, : len(sequence)] = torch.tensor(sequence)
embedding = nn.Embedding(10, 8)
out = embedding(padded)
