# TL401 edge of accumulates_per_step: class-body plain call; a harmless module def of the same name
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]


def step_value(x, y):
    return 0.0


class Run:
    def step_value(x, y):
        return ((model(x) - y) ** 2).mean()

    total = 0.0
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += step_value(x, y)
