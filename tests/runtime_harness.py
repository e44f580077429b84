"""Runtime verification harness: run fixture scripts and compare them with the reference trainer.

A fixture (``fixtures/<RULE>/bad_<case>.py`` and its auto-fixed
``bad_<case>.fixed.py``) defines
``main(device="cpu", seed=0, max_steps=None, **kwargs) -> dict`` returning at
least ``{"losses": [one float per step]}``. ``run_fixture`` executes one under
a fixed seed with every warning recorded; ``assert_trains_like_reference``
checks that its losses equal ``reference_trainer.run(...)``'s step by step.

Import this module only after ``pytest.importorskip("torch")``.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Optional
from warnings import WarningMessage

import torch

from reference_trainer import run, seed_everything

_module_ids = itertools.count()


@dataclass
class FixtureRun:
    """The outcome of one ``main()`` call of a fixture.

    ``result`` is what ``main`` returned, untouched (a bad fixture's losses may
    still be tensors with a graph); ``losses`` is ``result["losses"]`` as
    Python floats; ``warnings`` holds every warning raised while importing the
    module and running ``main``.
    """

    result: dict[str, Any]
    losses: list[float]
    warnings: list[WarningMessage]
    path: Path
    seed: int
    module: ModuleType

    def warnings_of(self, category: type[Warning] = Warning) -> list[str]:
        """Messages of the recorded warnings that are instances of ``category``."""
        return [str(w.message) for w in self.warnings if issubclass(w.category, category)]


def _load_module(path: Path) -> ModuleType:
    """Import ``path`` under a fresh module name, so two loads never share module state."""
    stem = re.sub(r"\W", "_", path.stem)
    name = f"_trainlint_fixture_{stem}_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load a Python module from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _as_float(value: Any) -> float:
    return value.detach().item() if isinstance(value, torch.Tensor) else float(value)


def run_fixture(path: Path, *, seed: int = 0, **kwargs: Any) -> FixtureRun:
    """Load the fixture at ``path``, ``seed_everything(seed)``, call ``main(seed=seed, **kwargs)``.

    The seed is also set before the import, so module-level randomness is
    reproducible too, and again right before ``main``, as the reference trainer
    does before building its task. Warnings are recorded
    (``simplefilter("always")``), not raised. Exceptions from the module or
    from ``main`` propagate unchanged. A ``main`` that does not return a dict
    with ``"losses"`` fails with ``AssertionError``.
    """
    path = Path(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seed_everything(seed)
        module = _load_module(path)
        try:
            seed_everything(seed)
            result = module.main(seed=seed, **kwargs)
        finally:
            sys.modules.pop(module.__name__, None)
    assert isinstance(result, dict) and "losses" in result, (
        f"{path}: main() must return a dict with a 'losses' list, got {type(result).__name__}"
    )
    losses = [_as_float(loss) for loss in result["losses"]]
    return FixtureRun(result, losses, list(caught), path, seed, module)


@functools.lru_cache(maxsize=None)
def _reference_losses(task: str, seed: int, options: tuple[tuple[str, Any], ...]) -> tuple[float, ...]:
    return tuple(run(task, seed=seed, **dict(options)).step_losses)


def reference_losses(task: str, *, seed: int = 0, **kwargs: Any) -> list[float]:
    """``run(task, seed=seed, **kwargs).step_losses``, computed once per distinct arguments."""
    return list(_reference_losses(task, seed, tuple(sorted(kwargs.items()))))


def assert_trains_like_reference(
    losses: Sequence[float],
    task: str,
    *,
    seed: int = 0,
    rtol: float = 1e-6,
    atol: float = 1e-7,
    **kwargs: Any,
) -> None:
    """Assert that ``losses`` match the reference run step by step (``torch.allclose``).

    ``kwargs`` go to ``reference_trainer.run`` (``max_steps``, ``device``,
    ``accumulation_steps``, ...). On failure the message names the first
    differing step.
    """
    expected = reference_losses(task, seed=seed, **kwargs)
    where = f"task={task!r} seed={seed} {kwargs or ''}".rstrip()
    if len(losses) != len(expected):
        raise AssertionError(f"{where}: {len(losses)} steps, reference has {len(expected)}")
    actual_t = torch.tensor([_as_float(loss) for loss in losses], dtype=torch.float64)
    expected_t = torch.tensor(expected, dtype=torch.float64)
    if torch.allclose(actual_t, expected_t, rtol=rtol, atol=atol):
        return
    close = torch.isclose(actual_t, expected_t, rtol=rtol, atol=atol)
    first = int((~close).nonzero()[0])
    raise AssertionError(
        f"{where}: step {first} differs: got {actual_t[first].item()!r}, reference {expected_t[first].item()!r} "
        f"(|diff|={abs(actual_t[first] - expected_t[first]).item():.3g}, rtol={rtol}, atol={atol}); "
        f"{int((~close).sum())} of {len(expected)} steps differ"
    )


def graph_size(tensor: Optional[torch.Tensor]) -> int:
    """Number of distinct autograd nodes reachable from ``tensor.grad_fn`` (0 for a leaf or a float).

    A loss accumulated with ``total += loss`` keeps every step's graph alive,
    so its graph size grows with the number of steps; ``total += loss.item()``
    stays at 0.
    """
    root = getattr(tensor, "grad_fn", None)
    if root is None:
        return 0
    seen = {root}
    stack = [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)


@contextmanager
def locals_on_return(function: str) -> Iterator[dict[str, Any]]:
    """The local variables of the last call of a fixture's ``function`` to return, captured as it returns.

    What an evaluation or a step keeps lives in its frame: reading it there
    needs no change to the fixture (only frames of modules loaded by
    :func:`run_fixture` are looked at).
    """
    captured: dict[str, Any] = {}
    previous = sys.getprofile()

    def profile(frame, event, arg) -> None:
        if event == "return" and frame.f_code.co_name == function and frame.f_globals["__name__"].startswith("_trainlint_fixture_"):
            captured.clear()
            captured.update(frame.f_locals)

    sys.setprofile(profile)
    try:
        yield captured
    finally:
        sys.setprofile(previous)
