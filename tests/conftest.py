"""Shared pytest configuration.

The ``cuda`` and ``runtime`` markers are declared in ``pyproject.toml``. Tests
marked ``cuda`` are skipped here, at collection time, when torch is missing or
has no CUDA device, so they skip cleanly instead of erroring. torch is only
imported when some collected test carries the marker.
"""

from __future__ import annotations

import os

import pytest

# torch's intra-op threads fight each other on a 2-core CI machine and make the
# runtime tests 2-4x slower; one thread also keeps the reference losses, which
# are cached per process, computed under the same setting as the fixtures.
os.environ.setdefault("OMP_NUM_THREADS", "1")


def _cuda_unavailable_reason() -> str:
    """Why CUDA tests cannot run here, or ``""`` when they can."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    return "" if torch.cuda.is_available() else "needs a CUDA GPU"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    cuda_items = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not cuda_items:
        return
    reason = _cuda_unavailable_reason()
    if reason:
        for item in cuda_items:
            item.add_marker(pytest.mark.skip(reason=reason))
