"""A fix may reveal another rule's finding, and the fix loop then fixes that one too.

Detaching a stored output (TL401) leaves a list that still gains a tensor every
step of every epoch: TL402's finding, which TL401's had hidden (a list of tensors
still holding their graph is TL401's alone). The verification asks that each
fixed finding is gone, not that no finding of another rule appears, so the file
is fixed in two passes instead of being refused as a broken fix (which it was
while the check counted findings per code: the pass that fixed one TL402 finding
revealed another).
"""

from __future__ import annotations

from typing import Any, Dict

import pytest

from trainlint.engine import RuleSettings, fix_source, lint_source
from trainlint.registry import ALL_CODES

STORED_OUTPUTS = '''\
import torch


def fit(model, loader, optimizer, epochs):
    kept_logits = []
    seen_inputs = []
    for epoch in range(epochs):
        for inputs in loader:
            logits = model(inputs)
            loss = logits.pow(2).mean()
            kept_logits.append(logits.to("cpu"))
            seen_inputs.append(inputs.to("cpu"))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return kept_logits, seen_inputs
'''

SETTINGS = RuleSettings(ALL_CODES, {"TL402": {"history-maxlen": 2}})


def test_the_finding_a_fix_reveals_is_fixed_on_the_next_pass() -> None:
    assert [d.code for d in lint_source(STORED_OUTPUTS, "fit.py", SETTINGS).diagnostics] == ["TL401", "TL402"]
    fixed = fix_source(STORED_OUTPUTS, "fit.py", SETTINGS, unsafe_fixes=True)
    assert fixed.errors == []
    assert dict(fixed.applied) == {"TL401": 1, "TL402": 2}
    assert lint_source(fixed.text, "fit.py", SETTINGS).diagnostics == []


def test_without_unsafe_fixes_nothing_is_applied() -> None:
    """Both fixes are unsafe: a safe-only run leaves the text and reports no error."""
    fixed = fix_source(STORED_OUTPUTS, "fit.py", SETTINGS, unsafe_fixes=False)
    assert (fixed.text, fixed.errors) == (STORED_OUTPUTS, [])


def test_the_twice_fixed_loop_keeps_the_last_outputs_without_their_graph() -> None:
    torch = pytest.importorskip("torch")
    fixed = fix_source(STORED_OUTPUTS, "fit.py", SETTINGS, unsafe_fixes=True).text
    namespace: Dict[str, Any] = {}
    exec(compile(fixed, "fit.py", "exec"), namespace)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    loader = [torch.randn(4, 3) for _ in range(3)]
    kept, seen = namespace["fit"](model, loader, torch.optim.SGD(model.parameters(), lr=0.1), epochs=2)
    assert isinstance(kept, list) and len(kept) == 2  # the bound of 2 set in SETTINGS, out of 6 steps
    assert all(t.grad_fn is None and t.device.type == "cpu" for t in kept)
    assert [t.tolist() for t in seen] == [t.tolist() for t in loader[1:]]  # the last two batches of epoch 2


def test_the_corpus_fuzzer_counts_the_revealed_finding_as_fixed_not_as_a_problem() -> None:
    """scripts/fuzz_corpus.py checks each pass against that pass's findings, so it accepts the cascade."""
    from scripts.fuzz_corpus import fix_problems

    problems, fixed, details = fix_problems(STORED_OUTPUTS, "fit.py", SETTINGS, unsafe_fixes=True)
    assert (problems, details) == ([], [])
    assert len(fixed.texts) == 3  # the original, after TL401 and one TL402, after the revealed TL402
