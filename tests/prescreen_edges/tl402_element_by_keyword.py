# TL402 edge of StepMemoryQuestions._may_be_kept: `append(object=v)` is LibCST's `args[0]` too.
import torch
import torch as th
from torch import zeros
def train(model, loader, epochs):
    kept = []
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.backward()
            kept.append(object=x.cpu())
    return kept
