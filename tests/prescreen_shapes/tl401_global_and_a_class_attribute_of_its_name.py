# TL401 edge of _dies_with_its_call: a class body in the step function binds `history` in its own scope, not the function's
import torch

history = []


def training_step(model, batch):
    class Record:
        history = None

    loss = model(batch).mean()
    loss.backward()
    history.append(loss)
    return Record
