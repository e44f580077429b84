# TL201 edge of amp_may_be_cuda_only (_may_reach_another_accelerator, _may_name_mps): MPS is named only by a `from torch.backends.mps import is_available`; the rule's `_note_mps_reference` reads the name's qualified name (`torch.backends.mps.is_available`), while the screen's identifiers hold an import's alias names, never the module it imports from
import torch
from torch.backends.mps import is_available

model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()
for step in range(10):
    with torch.cuda.amp.autocast():
        loss = model(torch.randn(4, 8)).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
print(is_available())
