# TL401 edge of _call_carries' functional-loss test: a fallback import binds the alias first, torch's in the handler wins
import torch
from torch import nn

try:
    from fastlosses import mse as lossf
except ImportError:
    from torch.nn.functional import mse_loss as lossf

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]

total = 0.0
for x, y in loader:
    pred = model(x)
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total += lossf(pred.detach(), y)
