# TL401 edge of _dies_with_its_call: a comprehension's target named like the global is the comprehension's own
import torch

history = []


def training_step(model, batch):
    sizes = [len(history) for history in batch]
    loss = model(batch).mean()
    loss.backward()
    history.append(loss)
    return sizes
