# TL401 edge of CASTS: `round` imported from torch in another function still qualifies every `round` (flow-insensitive)
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]


def helper(t):
    from torch import round
    return round(t)


total = 0.0
for x, y in loader:
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total += round(loss)
