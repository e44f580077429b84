# TL402 edge of trigger _PER_STEP_CODE (_OPTIMIZER_STEP): `optimizers[0].step()` is an optimizer step to optimizer_name_match (indexed, plural s dropped), but `optimizers[` breaks the regex `...\w*\s*\.\s*step\s*\(`; the gradients come from torch.autograd.grad, no `backward`
import torch
from torch import nn
from torch.utils.data import DataLoader


class Learner:
    def __init__(self, model: nn.Module, lr: float = 1e-2):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizers = [torch.optim.SGD(model.parameters(), lr=lr)]
        self.history = []

    def fit(self, loader: DataLoader, epochs: int = 1) -> None:
        params = list(self.model.parameters())
        for epoch in range(epochs):
            for x, y in loader:
                loss = self.criterion(self.model(x), y)
                grads = torch.autograd.grad(loss, params)
                for p, g in zip(params, grads):
                    p.grad = g
                self.optimizers[0].step()
                self.history.append({"epoch": epoch, "loss": loss.detach().cpu()})
