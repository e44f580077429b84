# TL402 edge of trigger _PER_STEP_CODE (def regex): a PEP 695 step hook `def train_step[T](...)` is a step hook to STEP_HOOK_NAME, but `\s*\(` meets `[`
from typing import Any


class Trainer:
    def __init__(self, model: Any):
        self.model = model
        self.history = []

    def train_step[T](self, batch: T) -> None:
        stats = self.model.fit_batch(batch)
        self.history.append({"loss": stats["loss"], "n": len(batch)})
