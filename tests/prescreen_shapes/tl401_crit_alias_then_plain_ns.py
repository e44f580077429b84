# TL401 edge of _criteria: an alias spelled like torch's loss class, rebound by a later plain import, stored on a namespace
import types

import torch
from torch import nn
from helpers import Smooth as MSELoss
from torch.nn import MSELoss

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]
losses = types.SimpleNamespace()
losses.mse = MSELoss()

total = 0.0
for x, y in loader:
    pred = model(x)
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total += losses.mse(pred.detach(), y)
