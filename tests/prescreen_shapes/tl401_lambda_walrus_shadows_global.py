# TL401 edge of _seen_bindings: a walrus in a lambda binds the lambda's own `reference`, not the function's
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
reference = model(torch.randn(2, 4)).mean()
total = 0.0


def train(loader):
    global total
    scale = lambda: (reference := 2.0)
    for x in loader:
        loss = model(x).mean() * scale()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += reference
