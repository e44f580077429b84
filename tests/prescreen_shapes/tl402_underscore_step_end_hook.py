# TL402 edge of trigger _PER_STEP_CODE (def regex): `def _step_end(self, outputs)` is a step hook to STEP_HOOK_NAME (`(^|_)step_end$`), but the regex needs a word character before `_step` and `step_end` to start the name
"""A metrics callback: the trainer of another module calls `_step_end` after every optimizer step."""
import torch


class LossTracker:
    def __init__(self):
        self.losses = []

    def _step_end(self, outputs):
        self.losses.append(outputs["loss"].detach())

    def summary(self):
        return torch.stack(self.losses).mean().item()
