# TL404 edge of evaluates (_called_with_a_model_in_eval_mode): `model.eval()` and `evaluate(model, loader)` are both defaults of `report`; the rule's _modes_passed_in reads both with enclosing_function (the def, header included), so `net` is in eval mode, while the screen compares the mode call's walk scope (inside `report`) with the call's `_scope_at` (the module, around the def) and finds no caller
import torch

model = torch.nn.Linear(4, 2)
loader = [torch.randn(3, 4) for _ in range(20)]


def evaluate(net, batches):
    total = 0.0
    for x in batches:
        total += net(x).sum().item()
    return total


def report(mode=model.eval(), score=evaluate(model, loader)):
    return score
