# TL401 edge of _dies_with_its_call: a lambda parameter named like the global is no local of the step function
import torch

history = []


def training_step(model, batch):
    keep = lambda history: len(history)
    loss = model(batch).mean()
    loss.backward()
    history.append(loss)
    return keep
