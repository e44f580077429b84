# TL402 edge of StepMemoryQuestions._may_run_every_step: the budget is the innermost class's (`enclosing_class`), not an outer one's.
class Finder:
    def __init__(self, n):
        self.num_training = n
    def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
        class Inner:
            def __init__(self):
                self.losses = []
            def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
                self.losses.append(outputs)
        return Inner
