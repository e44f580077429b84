# TL404 missed by `evaluates`: `_called_with_a_model_in_eval_mode` finds callers by the last name `__call__`; the rule's _modes_from_callers (Names.calls_of: an instance's __call__ runs under any name) finds `evaluate(model, loader)` after `model.eval()` -> EvalWithoutNoGrad reports.


class Evaluator:
    def __call__(self, model, loader):
        correct = 0
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
        return correct


def main(model, loader):
    evaluate = Evaluator()
    model.eval()
    print(evaluate(model, loader))
