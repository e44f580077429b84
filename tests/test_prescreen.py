"""The structural pre-screen (trainlint/prescreen.py) only decides who gets parsed: it never changes a finding.

Every fixture is linted with and without it, with every rule selected; the
findings must be identical. The screen must also actually screen: a file whose
trigger words occur but whose structure cannot hold a finding is not parsed.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from trainlint.engine import RuleSettings, lint_source
from trainlint.prescreen import Features, screened_codes
from trainlint.registry import ALL_CODES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*.py"))


def _findings(text: str, path: str, screen: bool):
    result = lint_source(text, path, RuleSettings(ALL_CODES, {}), screen=screen)
    return [(d.code, d.location.row, d.location.column, d.message) for d in result.diagnostics], result.errors


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_same_findings_with_and_without_the_screen(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _findings(text, str(path), screen=True) == _findings(text, str(path), screen=False)


LIGHTNING_MODULE = """
import torch
import lightning as L

class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("loss", loss)
        return loss
"""


def test_a_step_hook_that_keeps_nothing_is_screened_out() -> None:
    """TL401's trigger (`training_step`) matches; nothing sums, appends or stores: not worth parsing."""
    tree = ast.parse(LIGHTNING_MODULE)
    assert screened_codes(tree, ["TL401"]) == []
    kept = LIGHTNING_MODULE.replace("        return loss", "        self.losses.append(loss)\n        return loss")
    assert screened_codes(ast.parse(kept), ["TL401"]) == ["TL401"]


def test_a_file_screened_out_does_not_import_libcst(tmp_path: Path) -> None:
    import subprocess

    script = tmp_path / "model.py"
    script.write_text(LIGHTNING_MODULE, encoding="utf-8")
    code = textwrap.dedent(
        f"""
        import sys
        from trainlint.engine import RuleSettings, lint_source
        from trainlint.registry import ALL_CODES
        text = open({str(script)!r}, encoding="utf-8").read()
        assert lint_source(text, "model.py", RuleSettings(ALL_CODES, {{}})).diagnostics == []
        print("libcst" in sys.modules)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    "code, trains, accumulates",
    [
        ("loss.backward()", True, False),
        ("scaler.step(optimizer)", True, False),
        ("self.optimizer.step()", True, False),
        ("scheduler.step()", False, False),
        ("def on_train_batch_end(self): pass", True, False),
        ("def prepare_extra_step_kwargs(self): pass", False, False),
        ("total += loss", False, True),
        ("count += 1", False, False),
        ("total = total + loss", False, True),
        ("log[step] = loss", False, True),
        ("losses.append(loss)", False, True),
    ],
)
def test_features(code: str, trains: bool, accumulates: bool) -> None:
    features = Features(ast.parse(code))
    assert (features.trains, features.accumulates) == (trains, accumulates)
