# TL401 edge of ModuleValues.passed (_is_partial): `keep = bind(base_keep, out)` with `from functools import partial as bind` rebinds the def's name to a partial of it (Names._is_partial reads the qualified name), so the later `keep(step)` fills `value` with `out` first (Names._arguments); the screen knows a partial only by the last name `partial`
from functools import partial as bind

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
    keep = bind(base_keep, out)
    keep(step)
