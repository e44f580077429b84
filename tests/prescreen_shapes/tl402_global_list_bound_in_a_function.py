# TL402 edge of _module_lists: a module-level list bound by `global` inside a function
import torch

def setup():
    global history
    history = []

def train(model, loader, optimizer):
    for x in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        history.append(x.detach())
