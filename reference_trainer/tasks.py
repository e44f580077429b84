"""The three reference tasks: their hyper-parameters, in one readable place.

A fixture matches the reference by using exactly these values: the data
function and model factory named in the spec, called with the seed; a plain
``DataLoader(dataset, batch_size=spec.batch_size, shuffle=False)``; the
optimiser class with ``lr=spec.lr`` and otherwise default arguments; and the
loss named in ``spec.loss``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Optional

import torch
from torch import nn
from torch.utils.data import Dataset, TensorDataset

from .data import TextClassificationDataset, lstm_arrays, regression_arrays, text_collate
from .models import make_lstm_model, make_regression_model, make_text_model

_OPTIMIZERS: Mapping[str, Callable[..., torch.optim.Optimizer]] = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}
_LOSSES: Mapping[str, Optional[Callable[[], nn.Module]]] = {
    "cross_entropy": nn.CrossEntropyLoss,
    "mse": nn.MSELoss,
    "model": None,  # the model computes ``.loss`` itself from ``labels``
}


@dataclass(frozen=True)
class TaskSpec:
    """Hyper-parameters of one task.

    ``optimizer``: ``"sgd"`` (``torch.optim.SGD``) or ``"adam"``
    (``torch.optim.Adam``), built with ``lr`` and default everything else.
    ``loss``: ``"cross_entropy"`` (``nn.CrossEntropyLoss()``), ``"mse"``
    (``nn.MSELoss()``) or ``"model"`` (the model returns ``.loss``).
    ``label_aliases``: batch-key renames applied by ``filter_batch``.
    """

    name: str
    batch_size: int
    lr: float
    optimizer: str
    loss: str
    label_aliases: tuple[tuple[str, str], ...] = ()

    def make_optimizer(self, parameters: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
        return _OPTIMIZERS[self.optimizer](parameters, lr=self.lr)

    def make_loss_fn(self) -> Optional[nn.Module]:
        factory = _LOSSES[self.loss]
        return factory() if factory is not None else None


TASKS: Mapping[str, TaskSpec] = MappingProxyType(
    {
        "lstm": TaskSpec("lstm", batch_size=32, lr=0.005, optimizer="adam", loss="cross_entropy"),
        "text": TaskSpec(
            "text", batch_size=16, lr=0.01, optimizer="adam", loss="model", label_aliases=(("label", "labels"),)
        ),
        "regression": TaskSpec("regression", batch_size=32, lr=0.05, optimizer="sgd", loss="mse"),
    }
)


@dataclass
class Task:
    """A built task: CPU-resident data set, freshly initialised CPU model, loss and collate function."""

    spec: TaskSpec
    dataset: Dataset
    model: nn.Module
    loss_fn: Optional[nn.Module]
    collate_fn: Optional[Callable[[list[Any]], Any]] = None


def _tensor_dataset(arrays: tuple[Any, Any]) -> TensorDataset:
    inputs, targets = arrays
    return TensorDataset(torch.from_numpy(inputs), torch.from_numpy(targets))


def _build_lstm(spec: TaskSpec, seed: int) -> Task:
    return Task(spec, _tensor_dataset(lstm_arrays(seed)), make_lstm_model(seed), spec.make_loss_fn())


def _build_text(spec: TaskSpec, seed: int) -> Task:
    return Task(spec, TextClassificationDataset(seed), make_text_model(seed), spec.make_loss_fn(), text_collate)


def _build_regression(spec: TaskSpec, seed: int) -> Task:
    return Task(spec, _tensor_dataset(regression_arrays(seed)), make_regression_model(seed), spec.make_loss_fn())


_BUILDERS: Mapping[str, Callable[[TaskSpec, int], Task]] = {
    "lstm": _build_lstm,
    "text": _build_text,
    "regression": _build_regression,
}


def build(name: str, seed: int = 0) -> Task:
    """Build task ``name`` (a key of ``TASKS``) from ``seed``; raises ``KeyError`` listing the known names."""
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; expected one of {sorted(TASKS)}")
    return _BUILDERS[name](TASKS[name], seed)
