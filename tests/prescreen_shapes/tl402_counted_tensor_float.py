# TL402 edge of _may_be_device_tensor: `torch.Tensor.float(x)` is a device tensor to the rule
import torch


def train(model, loader, optimizer, max_iters):
    kept = []
    batches = iter(loader)
    for step in range(max_iters):
        x = next(batches)
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
        kept.append(torch.Tensor.float(x))
    return kept
