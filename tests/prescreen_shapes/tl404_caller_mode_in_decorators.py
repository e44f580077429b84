# TL404 edge of evaluates (_called_with_a_model_in_eval_mode): `model.eval()` and `evaluate(model, loader)` are arguments of two decorators of one def; the rule's _modes_passed_in reads both as code of that def (enclosing_function), so `net` is in eval mode, while the screen takes the mode call's scope from the walk (inside the def) and the call's from `_scope_at` (around it) and finds no caller
import torch

model = torch.nn.Linear(4, 2)
loader = [torch.randn(3, 4) for _ in range(20)]
registry = {}


def register(value):
    def wrap(function):
        registry[function.__name__] = value
        return function
    return wrap


def evaluate(net, batches):
    total = 0.0
    for x in batches:
        total += net(x).sum().item()
    return total


@register(model.eval())
@register(evaluate(model, loader))
def summary():
    return registry
