# TL402 edge of _may_start_once: a class body inside the function binds `history` in its own scope
import torch


def train(model, loader, optimizer, epochs):
    history = []

    class Snapshot:
        history = None

    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.backward()
            optimizer.step()
            history.append(x.detach())
    return history, Snapshot
