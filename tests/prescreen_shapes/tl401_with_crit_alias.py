# TL401 edge of accumulates_per_step: a `with ... as crit` name sharing a criterion attribute's name, called plainly
import contextlib

import torch
from torch import nn
from torch.nn import SmoothL1Loss as Huber

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]


class Holder:
    pass


holder = Holder()
holder.crit = Huber()

total = 0.0
for x, y in loader:
    pred = model(x)
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    with contextlib.nullcontext(holder.crit) as crit:
        total += crit(pred.detach(), y)
