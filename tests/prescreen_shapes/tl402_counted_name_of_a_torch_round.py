# TL402 edge of _may_be_device_tensor: a name bound to `torch.round(...)`
import torch


def train(model, loader, optimizer, max_iters):
    kept = []
    batches = iter(loader)
    for step in range(max_iters):
        x = next(batches)
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
        rounded = torch.round(x)
        kept.append(rounded)
    return kept
