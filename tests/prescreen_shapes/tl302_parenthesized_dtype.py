# TL302 edge of trigger _FLOAT_TENSOR: `dtype=(\n torch.float32\n)`, a float dtype in parentheses: the `dtype\s*=\s*[\w.]*(?:float|...)` pattern stops at the parenthesis
import torch
from torch import nn

vocab = {"<pad>": 0, "the": 1, "cat": 2, "sat": 3}
sentence = ["the", "cat", "sat"]
ids = torch.tensor(
    [vocab[word] for word in sentence],
    dtype=(
        torch.float32
    ),
)
embedding = nn.Embedding(len(vocab), 16)
vectors = embedding(ids)
