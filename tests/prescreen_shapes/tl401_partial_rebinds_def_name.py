# TL401 edge of ModuleValues.passed (via _passed_values_carry): `keep = functools.partial(base_keep, out)` then `keep(step)`: a call named like the def whose name reaches one partial gets the partial's arguments first (Names._arguments), so `value` receives `out`
import functools

import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
outputs = []


def keep(value, tag):
    outputs.append(value)


base_keep = keep
inputs = torch.randn(8, 4)
for step in range(10):
    out = model(inputs)
    optimizer.zero_grad()
    out.pow(2).mean().backward()
    optimizer.step()
    keep = functools.partial(base_keep, out)
    keep(step)
