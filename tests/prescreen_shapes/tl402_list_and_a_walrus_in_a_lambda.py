# TL402 edge of _may_start_once: a walrus in a lambda binds the lambda's own `history`
import torch


def train(model, loader, optimizer, epochs):
    history = []
    fresh = lambda: (history := [])
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.backward()
            optimizer.step()
            history.append(x.detach())
    return history, fresh
