# TL404 edge of EvaluationQuestions._loops_for_eval held_out: a comprehension over `bar` of `with tqdm(test_loader) as bar` (iterated() follows the with binding)
import torch
from tqdm import tqdm

model = torch.nn.Linear(4, 2)
test_loader = [torch.randn(8, 4) for _ in range(100)]
with tqdm(test_loader) as bar:
    scores = [model(x).argmax(1).sum().item() for x in bar]
print(sum(scores))
