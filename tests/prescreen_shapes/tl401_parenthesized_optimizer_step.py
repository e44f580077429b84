# TL401 edge of trigger _PER_STEP_CODE (_OPTIMIZER_STEP): `(optimizer).step()` is an optimizer step to steps_training (dotted reads through the parentheses), but the regex meets `)` between the name and `.step(`; gradients from torch.autograd.grad, no `backward`
"""Gradients by torch.autograd.grad (to clip them by hand), applied by the optimizer."""
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, max_norm=1.0):
    running = 0.0
    for inputs, targets in loader:
        loss = F.cross_entropy(model(inputs), targets)
        grads = torch.autograd.grad(loss, list(model.parameters()))
        scale = min(1.0, max_norm / (torch.norm(torch.stack([g.norm() for g in grads])) + 1e-6))
        for p, g in zip(model.parameters(), grads):
            p.grad = g * scale
        (optimizer).step()
        running += loss
    return running
