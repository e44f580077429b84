# TL405 missed by `loop_may_miss_zero_grad`: the walk counted a `zero_grad()` in a loop's `else` as clearing its iterations; the rule reads the body only (`Loops.body_nodes`).
import torch


def train(model, loader, optimizer):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    else:
        optimizer.zero_grad()
