# TL103 edge of moves_a_read_value (_moves, _names_cuda_tensor_type): a whole file made a CUDA tensor through a name bound to `gpu.FloatTensor` after `from torch import cuda as gpu`; the walk flags only `<...>.cuda.XTensor`, and `_moves` takes a plain callee only when its name ends in "Tensor" and an import from `cuda` binds it, while the rule's placement resolves `gpu.FloatTensor` to `torch.cuda.FloatTensor`
import numpy as np
import torch
from torch import cuda as gpu

Float = gpu.FloatTensor

data = Float(np.load("train.npy"))
model = torch.nn.Linear(8, 1).to("cuda")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batch_size = 32
for i in range(0, len(data), batch_size):
    batch = data[i:i + batch_size]
    loss = model(batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
