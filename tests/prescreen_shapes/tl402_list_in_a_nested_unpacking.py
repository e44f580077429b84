# TL402 edge of _history_targets: a module-level list bound by a nested unpacking
import torch

(history, other), count = ([], []), 0

def train(model, loader, optimizer):
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        history.append(x.detach())
