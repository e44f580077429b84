# TL404 missed by `evaluates`: Features._runs_without_grad takes `validation_step` for a Lightning hook run without grad because its name is in no call's last name (`_called`); the module calls it as `self.evaluate()` (`self.evaluate = self.validation_step`), which GradMode._call_sites resolves (CallGraph -> resolve_callable), so it runs with grad -> EvalWithoutNoGrad reports.
import torch


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.evaluate = self.validation_step

    def validation_step(self):
        self.model.eval()
        correct = 0
        for x, y in self.val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
        return correct

    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.train_loader:
                self.optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            print(epoch, self.evaluate())
