"""Property test: check and fix, with every real rule, over generated training scripts.

The generator mixes the defect shapes of the real rules with their traps:

- TL101/TL102: a Dataset whose tensors are moved with ``.to(device)``, served with
  ``pin_memory`` and/or worker processes (trap: the tensors stay on the CPU);
- TL201: ``torch.cuda.amp`` autocast and GradScaler where the device may be MPS or
  the CPU (traps: a CUDA-only device, device-aware ``torch.autocast``);
- TL301: ``model(**batch)`` over a Dataset whose ``__getitem__`` returns extra keys
  (trap: a dict comprehension filtering to the forward parameters);
- TL401: ``total_loss += loss`` / ``losses.append(loss)`` after ``backward()``
  (traps: ``.item()``, ``.detach()``, accumulation under ``no_grad``);
- TL402: ``self.history.append(...)`` in a per-step method (trap: a bounded deque);

plus formatting noise a fix must not touch (comments, blank lines, quotes,
trailing blanks). For each script, ``scripts/fuzz_corpus.fix_problems`` (the
same checks the corpus run makes) must find no problem:

- no crash: no rule and no parser raised (no internal error), and the engine's
  verification refused no fix;
- the fixed code parses (LibCST and CPython);
- fixing is idempotent: fixing the fixed code changes nothing;
- each applied fix removed exactly one finding of its rule and added none
  (asserted as counts: for every rule R that was fixed, findings of R after
  fixing <= findings of R before - fixes of R applied; a finding of R that
  remains is one that had no applicable fix, or whose fix overlapped another);
- nothing changed in a file without findings, and no line changed that no fix's
  reported edit covers.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from scripts.fuzz_corpus import lines_changed_outside_fixes, fix_problems
from trainlint.engine import LintResult, RuleSettings
from trainlint.registry import ALL_CODES

HEADER = '''"""Generated training script."""
import collections

import torch
from torch.utils.data import DataLoader, Dataset
'''

DEVICES = {
    "mps or cpu": 'device = torch.device("cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu")',
    "cpu": 'device = torch.device("cpu")',
    "cuda only": 'device = torch.device("cuda")',
}

DATASET = '''

class Pairs(Dataset):
    def __init__(self, n: int = 64) -> None:
        self.inputs = torch.randn(n, 4){placement}
        self.labels = torch.randint(0, 2, (n,)){placement}

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index):
        return {{"inputs": self.inputs[index], "labels": self.labels[index]{extra}}}
'''

MODEL = '''

class Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)

    def forward(self, inputs, labels):
        return torch.nn.functional.cross_entropy(self.linear(inputs), labels)
'''

TRACKER = '''

class Tracker:
    def __init__(self) -> None:
        self.history = {storage}

    def on_step(self, value: float) -> None:
        self.history.append(value)
'''

FORWARDS = {
    "unfiltered **batch": "loss = model(**batch)",
    "filtered comprehension": 'loss = model(**{key: value for key, value in batch.items() if key in ("inputs", "labels")})',
    "explicit arguments": 'loss = model(batch["inputs"], batch["labels"])',
}

AUTOCASTS = {
    "torch.cuda.amp": "torch.cuda.amp.autocast()",
    "device-aware": "torch.autocast(device_type=device.type)",
}

ACCUMULATIONS = {
    "+= loss": "total_loss += loss",
    "+= loss.item()": "total_loss += loss.item()",
    "append(loss)": "losses.append(loss)",
    "append(loss.detach())": "losses.append(loss.detach())",
    "append(loss.item())": "losses.append(loss.item())",
}

NOISE = ["", "# a comment that no fix may touch   ", "'single-quoted statement'", '"""A docstring-like string."""', "pass  ;  pass"]


@st.composite
def training_scripts(draw) -> str:
    """A runnable-looking training script combining defect shapes and traps."""
    extra = draw(st.sampled_from(["", ', "index": index', ', "index": index, "text": str(index)']))
    placement = draw(st.sampled_from(["", ".to(device)"]))
    workers = draw(st.sampled_from(["", ", num_workers=2"]))
    pin = draw(st.sampled_from(["", ", pin_memory=True"]))
    amp = draw(st.sampled_from(["none", *AUTOCASTS]))
    scaler = draw(st.booleans()) and amp != "none"
    accumulations = draw(st.lists(st.sampled_from(sorted(ACCUMULATIONS)), max_size=3, unique=True))
    validate = draw(st.booleans())
    storage = draw(st.sampled_from(["[]", "collections.deque(maxlen=100)"]))
    noise = draw(st.lists(st.sampled_from(NOISE), min_size=4, max_size=4))

    forward = FORWARDS[draw(st.sampled_from(sorted(FORWARDS)))]
    step = [forward, "loss.backward()" if not scaler else "scaler.scale(loss).backward()"]
    step += ["scaler.step(optimizer)", "scaler.update()"] if scaler else ["optimizer.step()"]
    step += [ACCUMULATIONS[name] for name in accumulations] + ["tracker.on_step(loss.item())", noise[2]]
    if amp != "none":
        step = [f"with {AUTOCASTS[amp]}:", "    " + step[0], *step[1:]]
    body = "\n".join("        " + line if line else "" for line in step)
    lines = [
        HEADER,
        noise[0],
        DEVICES[draw(st.sampled_from(sorted(DEVICES)))],
        DATASET.format(placement=placement, extra=extra),
        MODEL,
        TRACKER.format(storage=storage),
        "\n\ndef train(epochs: int = 1) -> float:",
        f"    loader = DataLoader(Pairs(), batch_size=8{pin}{workers})",
        "    model = Classifier().to(device)",
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
        "    tracker = Tracker()",
        "    scaler = torch.cuda.amp.GradScaler()" if scaler else "    " + noise[1],
        "    total_loss, losses = 0.0, []",
        "    for epoch in range(epochs):",
        "      for batch in loader:",
        "        optimizer.zero_grad()",
        body,
    ]
    if validate:
        lines += ["    with torch.no_grad():", "        for batch in loader:", "            losses.append(model(**batch))", "            total_loss += model(**batch)"]
    lines += ["    " + (noise[3] or "pass"), "    return float(total_loss) + len(losses)", ""]
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(training_scripts())
def test_check_and_fix_keep_their_promises(script: str) -> None:
    compile(script, "generated.py", "exec")  # the generator itself makes valid Python
    problems, _, details = fix_problems(script, "generated.py", RuleSettings(ALL_CODES), unsafe_fixes=True)
    assert problems == [], details


def test_the_checks_catch_a_broken_fix_and_a_crashing_rule(broken_registry: None, monkeypatch) -> None:
    """The property above can fail: the same checks flag a rule whose fix never converges, and a rule that raises."""
    from tests.shell.demo_rules import DemoEval
    from trainlint import registry

    every_rule = RuleSettings(registry.ALL_CODES)
    assert fix_problems("ping()\n", "m.py", every_rule, unsafe_fixes=True)[0] == ["fix rejected"]
    monkeypatch.setattr(DemoEval, "visit_Call", lambda self, node: 1 / 0)
    assert fix_problems("eval('1')\n", "m.py", every_rule, unsafe_fixes=True)[0] == ["crash"]


def test_the_checks_catch_a_line_changed_outside_the_replaced_nodes() -> None:
    checked = LintResult([], spans=[(((2, 0), (2, 9)),)])  # one fix, replacing a node on line 2
    before = "import os\nx = old()\ny = 1\nz = 2\n"
    after = "import os, sys\nx = new()\ny = 1\nz = 3\n"
    assert lines_changed_outside_fixes(before, after, checked) == [4]  # the import line may change, line 4 may not
