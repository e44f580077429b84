# TL401 edge of _seen_bindings: a comprehension target in the function is no binding of the module's `reference`
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
reference = model(torch.randn(2, 4)).mean()
total = 0.0


def train(loader):
    global total
    weights = [reference for reference in (1.0, 2.0)]
    for x in loader:
        loss = model(x).mean() * weights[0]
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += reference
