# TL404 missed by `evaluates`: `_called_with_a_model_in_eval_mode` finds callers by the last name `__init__`; the rule's _modes_from_callers (Names.calls_of: `Evaluation(...)` runs __init__) sees `model` put in eval mode before -> EvalWithoutNoGrad reports.


class Evaluation:
    def __init__(self, model, loader):
        self.correct = 0
        for x, y in loader:
            self.correct += (model(x).argmax(1) == y).sum().item()


def main(model, loader):
    model.eval()
    print(Evaluation(model, loader).correct)
