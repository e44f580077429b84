"""The names that make code a training step, or an evaluation, in one place.

Both the analyses on LibCST's tree (``trainlint.analysis.calls`` and
``steps``) and the structural pre-screen on CPython's tree
(``trainlint.prescreen``) decide "does this train?" from these. The
pre-screen must accept everything the analyses do, so they share the words;
this module imports nothing, so the pre-screen stays free of LibCST.
"""

from __future__ import annotations

import re

# ``loss.backward()``, ``accelerator.backward(loss)``, Lightning's ``self.manual_backward(loss)``.
BACKWARD_METHODS = frozenset({"backward", "manual_backward"})
# The receiver of a ``.step()`` that updates weights: an optimizer or a gradient scaler (not a scheduler).
OPTIMIZER_NAME = re.compile(r"(optim|opt$|optimizer|scaler)", re.IGNORECASE)
# ``training_step``, ``train_step``, ``_shared_step``, ``step``, ``log_step``, ``on_step_end``, ``training_step_end``,
# ``on_train_batch_end``. Not a helper that merely names steps (``prepare_extra_step_kwargs``, ``get_step_size``):
# diffusers' pipelines define the first in 135 files, none of them training.
STEP_HOOK_NAME = re.compile(r"(^|_)step(_(end|begin|start))?$|^on_\w*batch\w*$")

# ``log``/``update`` run per step only in a module that trains; elsewhere those names mean anything.
GENERIC_HOOK_NAMES = frozenset({"log", "update"})

# Splits of held-out data, and the names of their loaders: `val_loader`, `valid_dl`, `testloader`, `loader_val`,
# `self.val_dataloader()`, `loaders["val"]`. The analyses match a whole name; the registry's trigger finds one in text.
HELD_OUT_SPLITS = r"val|valid|validation|test|eval|dev"
SPLIT_LOADER_SUFFIXES = r"loader|dl|dataloader|data_loader|iter|iterator|batches|ds|dataset|data|set"
SPLIT_LOADER_PREFIXES = r"loader|dataloader|dl"
HELD_OUT_SPLIT = re.compile(rf"^({HELD_OUT_SPLITS})$", re.IGNORECASE)
HELD_OUT_LOADER_NAME = re.compile(
    rf"^({HELD_OUT_SPLITS})_?({SPLIT_LOADER_SUFFIXES})s?$|^({SPLIT_LOADER_PREFIXES})_?({HELD_OUT_SPLITS})$", re.IGNORECASE
)
