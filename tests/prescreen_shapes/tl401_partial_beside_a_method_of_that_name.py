# TL401 edge of ModuleValues.passed (_is_partial): a method named `partial` (`Checkpoint.partial`) makes the screen take no call of `partial` for functools' (its `_is_partial` asks that no def be so named), yet at module level the name is the import (Names._is_partial reads the qualified name), so `log_output = partial(base_log, out)` then `log_output(step)` fills `value` with `out` (Names._arguments)
from functools import partial

import torch
from torch import nn


class Checkpoint:
    def __init__(self, path):
        self.path = path

    def partial(self, net):
        return {k: v for k, v in net.state_dict().items() if not k.startswith("head.")}

    def save(self, net):
        torch.save(self.partial(net), self.path)


model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
checkpoint = Checkpoint("backbone.pt")
snapshots = []


def log_output(value, step):
    if step % 50 == 0:
        snapshots.append(value)


base_log = log_output
inputs, targets = torch.randn(64, 16), torch.randn(64, 1)
for step in range(500):
    out = model(inputs)
    optimizer.zero_grad()
    nn.functional.mse_loss(out, targets).backward()
    optimizer.step()
    log_output = partial(base_log, out)
    log_output(step)
checkpoint.save(model)
