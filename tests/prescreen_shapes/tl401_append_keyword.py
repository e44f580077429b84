# TL401 edge of accumulates_per_step: `history.append(object=loss)` passes the kept value by keyword (LibCST's args[0])
import torch


class Recorder:
    def __init__(self):
        self.items = []

    def append(self, object):
        self.items.append(float(object))


def train(model, loader, optimizer, criterion):
    history = Recorder()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(object=loss)
    return history
