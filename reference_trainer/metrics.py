"""Loss and gradient bookkeeping that does not keep tensors (or graphs) alive.

Why: ``total_loss += loss`` and ``losses.append(loss)`` store tensors that
still carry ``grad_fn``, so every step's autograd graph (and the activations
it references) stays in memory until the epoch ends; trackers that append a
value per step to a plain list grow without bound over a long run. Everything
here converts to Python floats at the door and keeps history in a bounded
``collections.deque``.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Union

import torch
from torch import nn

Number = Union[float, int, torch.Tensor]


def _as_float(value: Number) -> float:
    """A Python float from a number or a one-element tensor, detached from any graph."""
    if isinstance(value, torch.Tensor):
        return value.detach().item()
    return float(value)


def _json_float(value: float) -> Union[float, None]:
    """Strict JSON has no NaN/Infinity: report those as ``null``."""
    return value if math.isfinite(value) else None


class RunningLoss:
    """Weighted running mean of a loss, stored as floats only."""

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def update(self, loss: Number, count: int = 1) -> None:
        """Add a (mean) loss observed over ``count`` samples; a tensor is detached and read with ``.item()``."""
        self.total += _as_float(loss) * count
        self.count += count

    @property
    def mean(self) -> float:
        """The weighted mean so far; NaN before the first update."""
        return self.total / self.count if self.count else math.nan


class StepHistory:
    """The last ``maxlen`` per-step values, as floats."""

    def __init__(self, maxlen: int = 1000) -> None:
        if maxlen < 1:
            raise ValueError(f"maxlen must be >= 1, got {maxlen}")
        self._values: deque[float] = deque(maxlen=maxlen)

    @property
    def maxlen(self) -> int:
        return self._values.maxlen  # type: ignore[return-value]  # always set in __init__

    def append(self, value: Number) -> None:
        self._values.append(_as_float(value))

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[float]:
        return iter(self._values)


class GradientTracker:
    """Gradient-norm monitor with constant memory.

    * the recent norms live in a bounded deque (``history_size``);
    * the mean and variance over *all* finite norms are kept with Welford's
      online algorithm (numerically stable, O(1) memory);
    * vanishing (< ``vanishing_threshold``) and exploding
      (> ``exploding_threshold`` or non-finite) steps are counted. Non-finite
      norms are excluded from the statistics, which one NaN would poison.
    """

    def __init__(
        self, history_size: int = 1000, vanishing_threshold: float = 1e-7, exploding_threshold: float = 1e3
    ) -> None:
        self.history = StepHistory(history_size)
        self.vanishing_threshold = vanishing_threshold
        self.exploding_threshold = exploding_threshold
        self.steps = 0
        self.count = 0
        self.mean = 0.0
        self._m2 = 0.0
        self.min = math.inf
        self.max = -math.inf
        self.vanishing = 0
        self.exploding = 0
        self.non_finite = 0

    def update(self, parameters: Union[nn.Module, Iterable[torch.Tensor]]) -> float:
        """Record the total L2 norm of the current gradients (as ``clip_grad_norm_`` computes it) and return it."""
        if isinstance(parameters, nn.Module):
            parameters = parameters.parameters()
        norms = [torch.linalg.vector_norm(p.grad.detach()) for p in parameters if p.grad is not None]
        norm = torch.linalg.vector_norm(torch.stack(norms)).item() if norms else 0.0
        self.observe(norm)
        return norm

    def observe(self, norm: float) -> None:
        """Record one gradient norm."""
        norm = float(norm)
        self.steps += 1
        self.history.append(norm)
        if not math.isfinite(norm):
            self.non_finite += 1
            self.exploding += 1
            return
        self.count += 1
        delta = norm - self.mean
        self.mean += delta / self.count
        self._m2 += delta * (norm - self.mean)
        self.min = min(self.min, norm)
        self.max = max(self.max, norm)
        if norm < self.vanishing_threshold:
            self.vanishing += 1
        elif norm > self.exploding_threshold:
            self.exploding += 1

    @property
    def variance(self) -> float:
        """Population variance (``ddof=0``, like ``np.var``) of the finite norms; NaN when there are none."""
        return self._m2 / self.count if self.count else math.nan

    def report(self) -> dict[str, Any]:
        """A JSON-serialisable summary; non-finite values appear as ``None``."""
        return {
            "steps": self.steps,
            "finite_steps": self.count,
            "mean": _json_float(self.mean) if self.count else None,
            "variance": _json_float(self.variance),
            "std": _json_float(math.sqrt(self.variance)) if self.count else None,
            "min": _json_float(self.min),
            "max": _json_float(self.max),
            "vanishing": self.vanishing,
            "exploding": self.exploding,
            "non_finite": self.non_finite,
            "history_size": self.history.maxlen,
            "history": [_json_float(norm) for norm in self.history],
        }

    def to_json(self) -> str:
        """The report as strict JSON (``allow_nan=False``)."""
        return json.dumps(self.report(), allow_nan=False, sort_keys=True)
