# TL401 edge of ModuleValues._iteration_carries: `enumerate(start=0, iterable=rows)` passes the iterable by keyword; GraphValues._iterated_kind reads enumerate's arguments in written order, keywords included
import torch


def fit(model, loader, optimizer):
    total = 0.0
    for x, y in loader:
        out = model(x)
        rows = torch.abs(out - y)
        loss = rows.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        for i, row in enumerate(start=0, iterable=rows):
            total += row
    return total
