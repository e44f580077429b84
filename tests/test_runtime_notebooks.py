"""Runtime proof for notebooks: the fixed notebook's code cells, concatenated in order and run with torch on
the CPU, train exactly like the fixed ``.py`` fixture of the same rule (same per-step losses), and the
defect the bad notebook holds is there when it runs (graphs kept, AMP warnings, a TypeError).

IPython lines are not run (no kernel): they are replaced by ``pass``, as trainlint masks them.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Dict, List

import pytest

torch = pytest.importorskip("torch")

from reference_trainer import seed_everything  # noqa: E402
from tests.fixture_cases import FIXTURES, NOTEBOOKS, notebook_snapshot_of  # noqa: E402
from tests.runtime_harness import graph_size, run_fixture  # noqa: E402
from trainlint.notebook import lines_of, read_notebook  # noqa: E402

pytestmark = pytest.mark.runtime

# notebook -> the fixed .py fixture it mirrors; both run with seed 0 for 6 steps
MIRRORS = {
    "bad_TL101_collate_to_device.ipynb": "TL101_pin_memory_device_tensors/bad_collate_moves_batch.fixed.py",
    "bad_TL201_amp_with_outputs.ipynb": "TL201_cuda_amp_on_other_device/bad_aliased_imports.fixed.py",
    "bad_TL301_string_sources.ipynb": "TL301_unfiltered_batch_kwargs/bad_enumerate_loader.fixed.py",
    "bad_TL401_running_loss.ipynb": "TL401_undetached_loss_accumulation/bad_epoch_running_loss.fixed.py",
}
STEPS = 6


class _IPython:
    """What ``get_ipython()`` returns in a kernel, reduced to the calls the fixtures make."""

    def run_line_magic(self, name: str, line: str) -> None:
        return None


def run_notebook(path: Path) -> Dict[str, Any]:
    """Run the code cells in order in one namespace (seeded as run_fixture seeds); return the namespace."""
    notebook, _ = read_notebook(path.read_bytes())
    code = []
    for cell in notebook.cells:
        for line in lines_of(cell.code):
            content = line.rstrip("\r\n")
            code.append(content[: len(content) - len(content.lstrip())] + "pass\n" if content in cell.masked else line)
    namespace: Dict[str, Any] = {"__name__": "__notebook__", "get_ipython": _IPython}
    seed_everything(0)
    exec(compile("".join(code), str(path), "exec"), namespace)  # noqa: S102 - the fixture notebooks of this repository
    return namespace


def fixture_losses(name: str, seed: int = 0) -> List[float]:
    return run_fixture(FIXTURES / MIRRORS[name], seed=seed, max_steps=STEPS).losses


def test_every_bad_notebook_is_mirrored() -> None:
    assert sorted(MIRRORS) == sorted(p.name for p in NOTEBOOKS.glob("bad_*.ipynb") if not p.name.endswith(".fixed.ipynb"))


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_the_fixed_notebook_trains_like_the_fixed_script(name: str) -> None:
    losses = run_notebook(notebook_snapshot_of(NOTEBOOKS / name))["losses"]
    assert len(losses) == STEPS
    assert losses == pytest.approx(fixture_losses(name), rel=1e-6, abs=1e-7)
    # The comparison can fail: the same script under another seed trains differently.
    assert losses != pytest.approx(fixture_losses(name, seed=1), rel=1e-6, abs=1e-7)


def test_the_running_loss_notebook_keeps_graphs_until_fixed() -> None:
    bad = run_notebook(NOTEBOOKS / "bad_TL401_running_loss.ipynb")
    fixed = run_notebook(notebook_snapshot_of(NOTEBOOKS / "bad_TL401_running_loss.ipynb"))
    assert graph_size(bad["running_loss"]) > 0 and all(graph_size(loss) > 0 for loss in bad["batch_losses"])
    assert isinstance(fixed["running_loss"], float) and all(isinstance(loss, float) for loss in fixed["batch_losses"])


def test_the_amp_notebook_warns_that_amp_is_off_until_fixed() -> None:
    def amp_warnings(path: Path) -> List[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run_notebook(path)
        return [str(w.message) for w in caught if "CUDA is not available" in str(w.message)]

    assert amp_warnings(NOTEBOOKS / "bad_TL201_amp_with_outputs.ipynb")
    assert amp_warnings(notebook_snapshot_of(NOTEBOOKS / "bad_TL201_amp_with_outputs.ipynb")) == []


def test_the_batch_kwargs_notebook_fails_on_its_first_step_until_fixed() -> None:
    with pytest.raises(TypeError, match="text"):
        run_notebook(NOTEBOOKS / "bad_TL301_string_sources.ipynb")
