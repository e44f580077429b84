# TL401 edge of accumulates_per_step (_dies_with_its_call, ModuleValues.is_local): a walrus in a parameter's default binds `history` in the scope around the def (the module), yet the walk records it as the step function's own local, so the append is taken for one that dies with the call
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [torch.randn(8, 4) for _ in range(10)]


def train_step(batch, log=(history := [])):
    loss = model(batch).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    history.append(loss)
    return loss


for batch in loader:
    train_step(batch)
print(len(history))
