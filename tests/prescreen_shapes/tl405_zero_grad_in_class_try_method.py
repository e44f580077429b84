# TL405 edge of _methods_by_name: a method under `try` in the class body is no callee of `tools.reset(...)` to CallGraph's by-name match
import torch
from torch import nn


class Tools:
    try:
        import apex  # noqa: F401
    except ImportError:
        def reset(self, optimizer):
            optimizer.zero_grad(set_to_none=True)


def fit(model: nn.Module, loader):
    tools = Tools()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for batch in loader:
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
        tools.reset(optimizer)
