# TL302 missed by `may_index_with_float`: Features._index_modules is filled only by `_assigned` (Assign/AnnAssign), not by a walrus `(criterion := nn.CrossEntropyLoss())`, so `criterion(out, y.float())` is no index use; TL302 (FloatIndexTensors, module calls via the reaching binding) reports.
from torch import nn


def train(model, loader, optimizer):
    if (criterion := nn.CrossEntropyLoss()) is None:
        return
    for x, y in loader:
        target = y.float()
        loss = criterion(model(x), target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
