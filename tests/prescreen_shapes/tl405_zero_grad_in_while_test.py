# TL405 missed by `loop_may_miss_zero_grad`: the walk counted a `zero_grad()` in a `while` test as clearing the loop's iterations; the rule reads the body only (`Loops.body_nodes`).
import torch


def train(model, batches, optimizer):
    while optimizer.zero_grad() is None and batches:
        x, y = batches.pop()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
