# TL102 edge of loads_moved_data (_moves, _names_cuda_tensor_type): a CUDA tensor type held by a name, spelled through `import torch.cuda as tc` (`Float = tc.FloatTensor`); the walk flags only `<...>.cuda.XTensor`, and `_moves` takes a plain callee only when its name ends in "Tensor" and an import from `cuda` binds it, while the rule's `_names_cuda_tensor_type` resolves `tc.FloatTensor` to `torch.cuda.FloatTensor`
import torch
import torch.cuda as tc
from torch.utils.data import DataLoader, TensorDataset

Float = tc.FloatTensor

features = Float([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
targets = torch.tensor([0, 1, 0, 1])

loader = DataLoader(TensorDataset(features, targets), batch_size=2, shuffle=True, num_workers=2)

model = torch.nn.Linear(2, 2)
for xb, yb in loader:
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
