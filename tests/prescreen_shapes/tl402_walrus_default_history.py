# TL402 edge of grows_history_per_step (_module_lists): a walrus in a parameter's default binds the list `history` at module level, yet the walk files it under the def (`_lists_bound_in_functions`), so the per-step append to a module list is not seen
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [torch.randn(8, 4) for _ in range(10)]


def training_step(batch, log=(history := [])):
    loss = model(batch).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    history.append(loss.detach())
    return loss


for epoch in range(100):
    for batch in loader:
        training_step(batch)
print(len(history))
