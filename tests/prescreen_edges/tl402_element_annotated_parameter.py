# TL402 edge of StepMemoryQuestions._may_be_kept: a parameter annotated `torch.Tensor` is a tensor (`ANNOTATED`).
import torch
import torch as th
from torch import zeros
def train(model, loader, epochs, annotated: torch.Tensor = None):
    kept = []
    for epoch in range(epochs):
        for x in loader:
            loss = model(x)
            loss.backward()
            kept.append(annotated)
    return kept
