# TL302 may_index_with_float misses: batches._factory_may_make_float reads only positional ast args (`bool(call.args)`), so torch.tensor(data=token_ids) makes no float; the rule's _call_source takes libcst's call.args[0] (the data= keyword) and _numpy_float finds np.zeros; reported by FloatIndexTensors._call_source (TENSOR_FACTORIES)
import numpy as np
import torch
import torch.nn.functional as F

lines = open("tokens.txt").read().splitlines()
token_ids = np.zeros((len(lines), 16))
for i, line in enumerate(lines):
    row = [int(t) for t in line.split()][:16]
    token_ids[i, : len(row)] = row
inputs = torch.tensor(data=token_ids)
weight = torch.randn(30000, 128)
vectors = F.embedding(inputs, weight)
