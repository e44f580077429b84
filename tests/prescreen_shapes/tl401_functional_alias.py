# TL401 edge of accumulates_per_step: an import alias of a torch.nn.functional loss called by its plain alias name
import torch
from torch import nn
from torch.nn.functional import mse_loss as mse

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
    total += mse(pred.detach(), y)
