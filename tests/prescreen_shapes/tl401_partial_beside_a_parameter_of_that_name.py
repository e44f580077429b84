# TL401 edge of ModuleValues.passed (_is_partial): a parameter elsewhere named `partial` (`load_weights(..., partial=False)`) makes the screen take no call of `partial` for functools' (its `_is_partial` asks that no variable be so named), yet at the loop the name is the import (Names._is_partial reads the qualified name there), so `record = partial(base_record, out)` then `record(step)` fills `value` with `out` (Names._arguments)
from functools import partial

import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
kept_outputs = []


def load_weights(net, path, partial=False):
    state = torch.load(path, map_location="cpu")
    net.load_state_dict(state, strict=not partial)


def record(value, step):
    if step % 10 == 0:
        kept_outputs.append(value)


load_weights(model, "init.pt", partial=True)
base_record = record
inputs, targets = torch.randn(64, 16), torch.randn(64, 1)
for step in range(1000):
    out = model(inputs)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(out, targets).backward()
    optimizer.step()
    record = partial(base_record, out)
    record(step)
