# TL401 edge of _call_carries' functional-loss test: an alias bound by an import in an earlier def and by torch's later
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]


def report(a, b):
    from helpers import smooth as lossf
    return lossf(a, b)


from torch.nn.functional import mse_loss as lossf

total = 0.0
for x, y in loader:
    pred = model(x)
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    total += lossf(pred.detach(), y)
