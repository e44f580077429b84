# TL404 edge of EvaluationQuestions._loops_for_eval held_out: `with tqdm(val_loader) as bar: for x in bar` (iterated() follows the with binding)
import torch
from tqdm import tqdm

model = torch.nn.Linear(4, 2)
val_loader = [torch.randn(8, 4) for _ in range(100)]
correct = 0
with tqdm(val_loader) as bar:
    for x in bar:
        out = model(x)
        correct += out.argmax(1).sum().item()
print(correct)
