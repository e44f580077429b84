# TL403 edge of trigger _PER_STEP_CODE (def pattern): the out-of-memory handler is in `def _step(self, batch)`, a step hook to STEP_HOOK_NAME (`(^|_)step$`), but the trigger's `\w+_step` needs a character before `_step`; the backward runs in the base runner of another module
import logging

import torch

from engine.runner import BaseRunner

logger = logging.getLogger(__name__)


class SegmentationRunner(BaseRunner):
    """Forward and loss per batch; the base runner does the backward and the update."""

    def _step(self, batch):
        images, masks = batch
        try:
            logits = self.model(images.to(self.device))
            loss = self.criterion(logits, masks.to(self.device))
        except torch.cuda.OutOfMemoryError:
            logger.warning("out of memory on a batch of %d images, skipped", len(images))
            torch.cuda.empty_cache()
            return None
        return loss
