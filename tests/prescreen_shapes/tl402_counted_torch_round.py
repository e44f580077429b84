# TL402 edge of _may_be_device_tensor: `torch.round(x)` is a device tensor to the rule, not a rounded number
import torch


def train(model, loader, optimizer, max_iters):
    kept = []
    batches = iter(loader)
    for step in range(max_iters):
        x = next(batches)
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
        kept.append(torch.round(x))
    return kept
