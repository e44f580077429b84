# TL401 edge of _call_carries' functional-loss test: an alias spelled like torch's loss, rebound by a later plain import of it
import torch
from torch import nn
from helpers import smooth as mse_loss
from torch.nn.functional import mse_loss

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
    total += mse_loss(pred.detach(), y)
