# TL101 edge of loads_moved_data (_moves, _names_cuda_tensor_type): a CUDA tensor type held by a name, spelled through an import alias of `torch.cuda` (`from torch import cuda as gpu; Float = gpu.FloatTensor`); the walk flags only `<...>.cuda.XTensor`, and `_moves` takes a plain callee only when its name ends in "Tensor" and an import from `cuda` binds it, while the rule's `_names_cuda_tensor_type` resolves `gpu.FloatTensor` to `torch.cuda.FloatTensor`
import torch
from torch import cuda as gpu
from torch.utils.data import DataLoader, TensorDataset

Float = gpu.FloatTensor
Long = gpu.LongTensor

features = Float([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
targets = Long([0, 1, 0, 1])

loader = DataLoader(TensorDataset(features, targets), batch_size=2, shuffle=True, pin_memory=True)

model = torch.nn.Linear(2, 2)
for xb, yb in loader:
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
