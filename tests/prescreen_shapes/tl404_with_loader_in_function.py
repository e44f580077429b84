# TL404 edge of EvaluationQuestions._loops_for_eval held_out: `with tqdm(self.val_dl) as pbar: for b in pbar` in a method (iterated() follows the with binding)
import torch
from tqdm import tqdm


class Evaluator:
    def __init__(self, net, val_dl):
        self.net = net
        self.val_dl = val_dl

    def run(self):
        total = 0.0
        with tqdm(self.val_dl, desc="val") as pbar:
            for batch in pbar:
                logits = self.net(batch)
                total += logits.mean().item()
        return total


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


print(Evaluator(Net(), [torch.randn(2, 4)] * 50).run())
