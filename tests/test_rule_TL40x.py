"""Static unit tests for TL401 and TL402 beyond the fixtures.

Each silent trap is shown next to its twin without the guard, which must be
reported: the trap is silent for the reason it claims, not by accident. The
fix choice (``.item()`` or ``.detach()``, safe or unsafe, ``list(...)``
rewrites, the ``history-maxlen`` option) is checked on small cases.
"""

from __future__ import annotations

import textwrap
from typing import List, Optional, Tuple

import pytest

from trainlint.engine import RuleSettings, fix_source, lint_source

LOOP = """
import torch
import torch.nn.functional as F

def train(model, loader, optimizer, criterion):
{body}
"""


def _source(body: str) -> str:
    return LOOP.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))


def findings(code: str, text: str, options: Optional[dict] = None) -> List[Tuple[int, str, Optional[str]]]:
    result = lint_source(text, "case.py", RuleSettings(frozenset({code}), {code: options or {}}))
    assert not result.errors, result.errors
    return [(d.location.row, d.message, d.fix.applicability.value if d.fix else None) for d in result.diagnostics]


def fixed(code: str, text: str, options: Optional[dict] = None) -> str:
    result = fix_source(text, "case.py", RuleSettings(frozenset({code}), {code: options or {}}), unsafe_fixes=True)
    assert not result.errors, result.errors
    return result.text


# ----- TL401: traps and their twins -------------------------------------------------------

STEP = """
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""

TL401_TRAPS = {
    "reset at every optimizer step": (
        "total = 0.0\n" + STEP + "    total += loss\n    if total > 1:\n        total = 0.0\n",
        "total = 0.0\n" + STEP + "    total += loss\n",
    ),
    "summed under no_grad": (
        "total = 0.0\n" + STEP + "    with torch.no_grad():\n        total += criterion(model(x), y)\n",
        "total = 0.0\n" + STEP + "    total += criterion(model(x), y)\n",
    ),
    "a sum under no_grad of a loss computed with grad records no graph": (
        "total = 0.0\n" + STEP + "    with torch.no_grad():\n        total += loss\n",
        "total = 0.0\n" + STEP + "    total += loss\n",
    ),
    "detached first": (
        "losses = []\n" + STEP + "    losses.append(loss.detach().cpu().numpy())\n    losses.append(float(loss))\n",
        "losses = []\n" + STEP + "    losses.append(loss.cpu())\n",
    ),
    "loss rebound to its number after backward": (
        "total = 0.0\n" + STEP + "    loss = loss.item()\n    total += loss\n",
        "total = 0.0\n" + STEP + "    value = loss\n    total += value\n",
    ),
    "a key that does not change with the step keeps one graph per key": (
        "log = {}\n" + STEP + "    log['loss'] = loss\n    for name in ('a', 'b'):\n        log[name] = loss\n",
        "log = {}\n" + STEP.replace("for x, y in loader", "for step, (x, y) in enumerate(loader)") + "    log[step] = loss\n",
    ),
    "the loss being built, then backpropagated": (
        "for x, y in loader:\n    loss = 0\n    for head in model.heads:\n        loss += criterion(head(x), y)\n    loss.backward()\n",
        "total = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    total += loss\n",
    ),
    "a list rebuilt every step": (
        "for x, y in loader:\n    parts = []\n    parts.append(criterion(model(x), y))\n    loss = torch.stack(parts).sum()\n    loss.backward()\n",
        "parts = []\n" + STEP + "    parts.append(criterion(model(x), y))\n",
    ),
}


@pytest.mark.parametrize("trap", sorted(TL401_TRAPS))
def test_tl401_trap_is_silent_and_its_twin_is_reported(trap: str) -> None:
    silent, reported = TL401_TRAPS[trap]
    assert findings("TL401", _source(silent)) == []
    assert len(findings("TL401", _source(reported))) == 1


def test_tl401_follows_same_module_returns() -> None:
    helper = "\n\ndef step(model, x, y, criterion):\n    loss = criterion(model(x), y)\n    loss.backward()\n    return {}\n"
    body = "total = 0.0\nfor x, y in loader:\n    total += step(model, x, y, criterion)\n    optimizer.step()\n"
    assert findings("TL401", _source(body) + helper.format("loss.item()")) == []
    assert len(findings("TL401", _source(body) + helper.format("loss"))) == 1


def test_tl401_a_class_call_is_its_instance_not_what_its_init_returns() -> None:
    """``Scorer(model, x)`` evaluates to the instance: an ``__init__`` returning the loss (a TypeError once run) puts
    no graph in the sum, while a function of the same name and body does."""
    body = "total = 0.0\n" + STEP + "    total += Scorer(model, x)\n"
    net = "\n\nnet = torch.nn.Linear(4, 1)\n"
    as_class = net + "\n\nclass Scorer:\n    def __init__(self, model, x):\n        return net(x).sum()\n"
    as_function = net + "\n\ndef Scorer(model, x):\n    return net(x).sum()\n"
    settings = RuleSettings(frozenset({"TL401"}))
    for helper, expected in ((as_class, []), (as_function, ["TL401"])):  # the rule's own answer: the screen bypassed
        assert [d.code for d in lint_source(_source(body) + helper, "case.py", settings, screen=False).diagnostics] == expected


def test_tl401_loop_driven_by_a_same_module_step_function() -> None:
    helper = "\n\ndef train_step(model, x, y, criterion):\n    loss = criterion(model(x), y)\n    loss.backward()\n    return {}\n"
    body = "total = 0.0\nfor x, y in loader:\n    total += train_step(model, x, y, criterion)\n"
    assert findings("TL401", _source(body) + helper.format("loss.item()")) == []
    assert len(findings("TL401", _source(body) + helper.format("loss"))) == 1


def test_tl401_attribute_sums_and_moving_averages() -> None:
    module = """
import torch.nn.functional as F

class Trainer:
    def train_epoch(self, loader):
        self.total = 0.0
        for x, y in loader:
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.total += loss
            self.smoothed = 0.9 * self.smoothed + 0.1 * loss
            self.scaled = self.scaled * 0.5 + loss.item()
"""
    assert [row for row, _, _ in findings("TL401", module)] == [10, 11]


def test_tl401_per_step_dict_filled_with_the_loss_is_reported_without_fix() -> None:
    text = _source("records = []\n" + STEP + "    entry = {'epoch': 0}\n    entry['loss'] = loss\n    records.append(entry)\n")
    assert [f[2] for f in findings("TL401", text)] == [None]
    detached = text.replace("entry['loss'] = loss", "entry['loss'] = loss.item()")
    assert findings("TL401", detached) == []


def test_tl401_evaluation_step_hooks_run_without_grad() -> None:
    module = """
import torch.nn.functional as F

class Lit:
    def __init__(self):
        self.outputs = []

    def {hook}(self, batch, batch_idx):
        x, y = batch
        self.outputs.append(F.cross_entropy(self.model(x), y))
"""
    assert findings("TL401", module.format(hook="validation_step")) == []
    assert len(findings("TL401", module.format(hook="training_step"))) == 1


def test_tl401_attribute_cleared_by_another_per_step_method_lives_one_step() -> None:
    module = """
import torch.nn.functional as F

class Schedule:
    def __init__(self):
        self.microbatch_losses = []

    def training_step(self, output, target):
        loss = F.cross_entropy(output, target)
        self.microbatch_losses.append(loss)

    def {cleaner}(self):
        for loss in self.microbatch_losses:
            loss.backward()
        self.microbatch_losses.clear()
"""
    assert findings("TL401", module.format(cleaner="step")) == []
    assert len(findings("TL401", module.format(cleaner="on_train_epoch_end"))) == 1


# ----- TL401: which fix ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "after, stored, applicability",
    [
        ("print(f'{total / len(loader):.3f}')", "total += loss.item()", "safe"),
        ("print('{:.3f}'.format(total / len(loader)))", "total += loss.item()", "safe"),
        ("avg = total / len(loader)\nlogger.info('%.3f', avg)", "total += loss.item()", "safe"),
        ("print(total.item())", "total += loss.detach()", "safe"),
        ("return total", "total += loss.item()", "unsafe"),
    ],
)
def test_tl401_fix_depends_on_how_the_sum_is_read(after: str, stored: str, applicability: str) -> None:
    text = _source("total = 0.0\n" + STEP + "    total += loss\n" + after + "\n")
    assert [f[2] for f in findings("TL401", text)] == [applicability]
    assert stored in fixed("TL401", text)


def test_tl401_dict_of_lists_read_element_by_element_takes_numbers() -> None:
    body = "log = {'train': []}\n" + STEP + "    log['train'].append(loss)\nprint(json.dumps({'last': log['train'][-1]}))\n"
    text = "import json\n" + _source(body)
    assert [f[2] for f in findings("TL401", text)] == ["safe"]
    assert "log['train'].append(loss.item())" in fixed("TL401", text)


def test_tl401_tensor_accumulator_stays_a_tensor() -> None:
    text = _source("total = torch.zeros(1)\n" + STEP + "    total += loss\nprint(total)\n")
    assert "total += loss.detach()" in fixed("TL401", text)


def test_tl401_list_read_by_torch_keeps_tensors() -> None:
    text = _source("kept = []\n" + STEP + "    kept.append(loss)\nreturn torch.stack(kept).mean().item()\n")
    assert "kept.append(loss.detach())" in fixed("TL401", text)


def test_tl401_model_output_gets_an_unsafe_detach() -> None:
    text = _source("outputs = []\nfor x, y in loader:\n    out = model(x)\n    criterion(out, y).backward()\n    outputs.append(out)\n")
    assert [f[2] for f in findings("TL401", text)] == ["unsafe"]
    assert "outputs.append(out.detach())" in fixed("TL401", text)


@pytest.mark.parametrize(
    "stored, fix",
    [
        ("for metric, value in losses.items():\n                log[metric].append((step, value))", None),
        ("for value in losses.values():\n                log['all'].append(value)", None),
        ("log['loss'].append((step, losses['loss']))", "log['loss'].append((step, losses['loss'].item()))"),
    ],
)
def test_tl401_a_value_iterated_out_of_a_dict_gets_no_tensor_method(stored: str, fix: Optional[str]) -> None:
    """``{"loss": loss, "mse": loss.item()}``: the dict carries a graph, but a value drawn from it in a loop may be
    one of its numbers, which has no ``.detach()`` (round 7: uvadlc's tutorial_2a crashed at the first step)."""
    text = _source(
        f"""
        log = {{}}
        for step, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            losses = {{'loss': loss, 'mse': loss.item()}}
            loss.backward()
            {stored}
        """
    )
    assert [message.split("`")[1] for _, message, _ in findings("TL401", text)] == ["losses['loss']" if fix else "value"]
    assert (fix in fixed("TL401", text)) if fix else fixed("TL401", text) == text


def test_tl401_stored_container_is_reported_without_fix() -> None:
    text = _source(
        """
        outputs = []
        for x, y in loader:
            output = {'loss': criterion(model(x), y)}
            output['loss'].backward()
            outputs.append(output)
        """
    )
    assert [f[2] for f in findings("TL401", text)] == [None]


# ----- TL402: traps and their twins ---------------------------------------------------------

TRACKER = """
import json

class Tracker:
    def __init__(self):
        self.norms = {init}

    def update(self, norm: float):
{guard}        self.norms.append(norm)
{extra}
"""


TRAIN = """

def train(model, loader, optimizer, tracker):
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        tracker.update(loss.item())
"""


def tracker(init: str = "[]", guard: str = "", extra: str = "") -> str:
    return TRACKER.format(init=init, guard=guard, extra=extra) + TRAIN


TL402_TRAPS = {
    "pop(0)": tracker(extra="    def trim(self):\n        self.norms.pop(0)\n"),
    "del slice": tracker(extra="    def trim(self):\n        del self.norms[:-10]\n"),
    "slice reassignment": tracker(extra="    def trim(self):\n        self.norms = self.norms[-10:]\n"),
    "clear()": tracker(extra="    def reset(self):\n        self.norms.clear()\n"),
    "length check": tracker(extra="    def full(self):\n        return len(self.norms) >= 10\n"),
    "reset by another class": tracker(extra="\n\nclass Reporter:\n    def clear_log(self, tracker):\n        tracker.norms = []\n"),
    "a callback that stops at num_training": tracker(guard="        if self.step >= self.num_training:\n            return\n"),
    "deque(maxlen)": tracker(init="collections.deque(maxlen=10)"),
    "a counter capped by max_*": tracker(
        guard="        if self.count >= self.max_items:\n            return\n        self.count += 1\n"
    ),
    "filled for a base class defined elsewhere": tracker().replace("class Tracker:", "from .base import BaseTracker\n\nclass Tracker(BaseTracker):"),
    "an object with its own step budget": tracker(extra="    def budget(self, num_training):\n        pass\n").replace(
        "self.norms = []", "self.norms = []\n        self.num_training = 8"
    ),
    "reset by a base class of this module": tracker().replace(
        "class Tracker:", "class Resettable:\n    def reset(self):\n        self.norms = []\n\n\nclass Tracker(Resettable):"
    ),
    "filled for a base class defined elsewhere, a namesake read by another class": tracker().replace(
        "class Tracker:", "from .base import BaseTracker\n\nclass Tracker(BaseTracker):"
    )
    + "\n\nclass Summary:\n    def __init__(self):\n        self.norms = []\n\n    def mean(self):\n        return sum(self.norms)\n",
}


def test_tl402_a_cap_without_a_counter_is_no_bound() -> None:
    assert len(findings("TL402", tracker(guard="        if norm >= self.max_norm:\n            return\n"))) == 1


def test_tl402_untrimmed_tracker_is_reported() -> None:
    assert len(findings("TL402", tracker())) == 1


@pytest.mark.parametrize("trap", sorted(TL402_TRAPS))
def test_tl402_trap_is_silent(trap: str) -> None:
    assert findings("TL402", TL402_TRAPS[trap]) == []


@pytest.mark.parametrize(
    "header, extra",
    [
        ("from .base import BaseTracker\n\nclass Tracker(BaseTracker):", "    def mean(self):\n        return sum(self.norms) / len(self.norms)\n"),
        ("from torch import nn\n\nclass Tracker(nn.Module):", ""),
        ("class BaseTracker:\n    pass\n\nclass Tracker(BaseTracker):", ""),
        ("from typing import Generic, TypeVar\nT = TypeVar('T')\n\nclass Tracker(Generic[T], object):", ""),
    ],
    ids=["read here", "torch base", "base defined here", "typing base"],
)
def test_tl402_subclass_history_is_reported_when_its_readers_are_in_sight(header: str, extra: str) -> None:
    """The twins of the imported-base trap: this module reads the list, or every base is in sight."""
    assert len(findings("TL402", tracker(extra=extra).replace("class Tracker:", header))) == 1


def test_tl402_a_namesake_reset_in_an_unrelated_class_trims_only_its_own_list() -> None:
    """Twin of the base-class reset: ``self.norms = []`` in a class that is no base of ``Tracker``."""
    text = tracker().replace("class Tracker:", "class Other:\n    def reset(self):\n        self.norms = []\n\n\nclass Tracker:")
    assert len(findings("TL402", text)) == 1


def test_tl402_namesakes_in_two_classes_are_two_histories() -> None:
    """Each is reported at its own append, counting only its own elements; each fix rewrites its own ``__init__``."""
    text = tracker() + "\n\nclass Pairs:\n    def __init__(self):\n        self.norms = []\n\n    def update(self, norm: float):\n        self.norms.append((norm, 1))\n"
    messages = [message for _, message, _ in findings("TL402", text)]
    assert len(messages) == 2
    assert "grows by one number every" in messages[0] and "grows by one tuple every" in messages[1]
    assert fixed("TL402", text).count("self.norms = collections.deque(maxlen=4096)") == 2


def test_tl402_message_counts_each_kind_of_element() -> None:
    text = tracker().replace("self.norms.append(norm)", "self.norms.append(norm)\n        self.norms.append((norm, 1))")
    assert "grows by one number and one tuple every training step" in findings("TL402", text)[0][1]


METERS = """
class Meter:
    def __init__(self):
        self.data = []

    def update(self, value):
        self.data.append(value)


class Logger:
    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.epoch = self.iteration = 0
{step}"""


@pytest.mark.parametrize(
    "getter",
    [
        "    def step(self):\n        return (self.epoch, self.iteration)\n",
        '    def global_step(self):\n        """Where the run is."""\n        return self.iteration\n',
        "    def step(self): return int(self.iteration)\n",
    ],
    ids=["tuple", "docstring", "one line"],
)
def test_tl402_a_step_getter_is_no_hook(getter: str) -> None:
    """A getter named ``step`` does not make a module of meters train: ``Meter.update`` may run once an epoch."""
    assert findings("TL402", METERS.format(step=getter)) == []


@pytest.mark.parametrize(
    "hook",
    [
        "    def step(self):\n        return self.optimizer.step()\n",
        "    def step(self, batch):\n        self.loss(batch).backward()\n",
        "    def train_step(self):\n        self.iteration += 1\n",
    ],
    ids=["steps the optimizer", "runs a backward", "named for training"],
)
def test_tl402_a_step_method_that_trains_is_a_hook(hook: str) -> None:
    """The getter's twins that train: the module trains, so ``Meter.update`` counts as a per-step ``update``."""
    assert len(findings("TL402", METERS.format(step=hook))) == 1


@pytest.mark.parametrize(
    "step",
    [
        "    def step(self):\n        self.iteration += 1\n",
        "    def step(self, batch):\n        return self.iteration\n",
        "    def step(self):\n        return self._advance()\n\n    def _advance(self):\n        self.iteration += 1\n",
    ],
    ids=["counts", "takes a batch", "delegates to this module"],
)
def test_tl402_a_bare_step_is_no_hook_where_nothing_trains(step: str) -> None:
    """``step`` is a generic name (``GENERIC_HOOK_NAMES``): a diffusion scheduler's or an environment's ``step`` is
    no training step, so where no backward, optimizer step or hook named for training is, the module does not train."""
    assert findings("TL402", METERS.format(step=step)) == []


def test_tl402_generic_hook_names_count_only_in_a_module_that_trains() -> None:
    module = """
class Lit:
    def __init__(self):
        self.logged = []

    def log(self, name, value: float):
        self.logged.append(value)
{hook}"""
    assert len(findings("TL402", module.format(hook="\n    def training_step(self, batch):\n        pass\n"))) == 1
    assert findings("TL402", module.format(hook="")) == []


EPOCHS = """
history = []
for epoch in range(3):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        history.append({stored})
"""


def test_tl402_appends_once_per_epoch_are_silent() -> None:
    per_step = _source(EPOCHS.format(stored="loss.detach()"))
    per_epoch = per_step.replace("        history.append(loss.detach())", "    history.append(loss.detach())")
    assert len(findings("TL402", per_step)) == 1
    assert findings("TL402", per_epoch) == []


def test_tl402_local_list_of_numbers_is_silent() -> None:
    text = _source(EPOCHS.format(stored="loss.item()"))
    assert findings("TL402", text) == []


def test_tl402_leaves_a_local_list_of_graph_carrying_losses_to_tl401() -> None:
    """One defect, one finding: TL401's fix (``.item()``) leaves a list of numbers, which TL402 lets be."""
    text = _source(EPOCHS.format(stored="loss"))
    assert findings("TL402", text) == []
    assert len(findings("TL401", text)) == 1
    assert len(findings("TL402", _source(EPOCHS.format(stored="loss.detach()")))) == 1  # device tensors: TL402's


# ----- TL402: message and fix ---------------------------------------------------------------


def test_tl402_message_names_the_element_and_the_growth() -> None:
    numbers = findings("TL402", tracker())
    tensors = findings("TL402", tracker().replace("append(norm)", "append(norm.detach().clone())"))
    assert "grows by one number every training step" in numbers[0][1]
    assert "grows by one device tensor every training step" in tensors[0][1]
    for moved in ('norm.to("cpu")', 'norm.detach().to(device="cpu")', 'norm.to(torch.device("cpu"))'):
        on_cpu = findings("TL402", tracker().replace("append(norm)", f"append({moved})"))
        assert "grows by one CPU tensor every training step" in on_cpu[0][1], moved


def test_tl402_fix_uses_the_option_and_the_module_spelling() -> None:
    text = "from collections import deque\n" + tracker()
    result = fixed("TL402", text, {"history-maxlen": 7})
    assert "self.norms = deque(maxlen=7)" in result and "import collections" not in result


@pytest.mark.parametrize(
    "use, rewritten, applicability",
    [
        ("print(json.dumps(self.norms))", "print(json.dumps(list(self.norms)))", "unsafe"),
        ("print(self.norms[-5:])", "print(list(self.norms)[-5:])", "unsafe"),
        ("print(sum(self.norms) / len(self.norms))", "print(sum(self.norms) / len(self.norms))", "unsafe"),
        ("return {'norms': self.norms}", "return {'norms': list(self.norms)}", "unsafe"),
        ("return self.norms", "return list(self.norms)", "unsafe"),
        ("print(json.dumps(self.norms.copy()))", "print(json.dumps(list(self.norms)))", "unsafe"),
    ],
)
def test_tl402_uses_a_deque_breaks_are_rewritten(use: str, rewritten: str, applicability: str) -> None:
    text = tracker(extra=f"\n    def report(self):\n        {use}\n")
    assert [f[2] for f in findings("TL402", text)] == [applicability]
    assert rewritten in fixed("TL402", text)


def private_tracker(extra: str = "") -> str:
    return tracker(extra=extra).replace("self.norms", "self._norms")


@pytest.mark.parametrize(
    "read, applicability",
    [
        ("print(self._norms[-1])", "safe"),
        ("if not self._norms:\n            return None", "safe"),
        ("print(self._norms[0])", "unsafe"),
        ("print(sum(self._norms) / len(self._norms))", "unsafe"),
        ("print(json.dumps(self._norms))", "unsafe"),
        ("return [n for n in self._norms]", "unsafe"),
        ("return self._norms == [1.0]", "unsafe"),
    ],
)
def test_tl402_fix_is_safe_only_for_a_private_history_read_at_its_end(read: str, applicability: str) -> None:
    """Issue 14: bounding a list changes every statistic over it, and a public attribute may be read anywhere."""
    text = private_tracker(extra=f"\n    def report(self):\n        {read}\n")
    assert [f[2] for f in findings("TL402", text)] == [applicability]
    if applicability == "unsafe":
        assert "then sees only the last 4096 entries" in fix_titles("TL402", text)[0]


def test_tl402_fix_of_a_public_history_says_other_modules_see_it_bounded() -> None:
    assert [f[2] for f in findings("TL402", tracker())] == ["unsafe"]
    assert "(unsafe: code in other modules then sees only the last 4096 entries" in fix_titles("TL402", tracker())[0]
    assert [f[2] for f in findings("TL402", private_tracker())] == ["safe"]


def fix_titles(code: str, text: str) -> List[str]:
    result = lint_source(text, "case.py", RuleSettings(frozenset({code}), {code: {}}))
    return [d.fix.message for d in result.diagnostics if d.fix]


def test_tl402_dict_of_lists_sliced_per_key_reads_a_list_copy() -> None:
    text = tracker().replace("self.norms = []", "self.norms = {'a': []}").replace("self.norms.append(norm)", "self.norms['a'].append(norm)")
    text += "\n\ndef recent(tracker):\n    return sum(tracker.norms['a'][-5:])\n"
    assert [f[2] for f in findings("TL402", text)] == ["unsafe"]
    assert "sum(list(tracker.norms['a'])[-5:])" in fixed("TL402", text)


def test_tl402_no_fix_when_the_list_is_sorted_in_place() -> None:
    text = tracker(extra="\n    def median(self):\n        self.norms.sort()\n        return self.norms[len(self.norms) // 2]\n")
    assert [f[2] for f in findings("TL402", text)] == [None]


ODD_CODE = """
import torch
from collections import *
from . import sibling

def train(model, loader, *args, **kwargs):
    global counter
    (a, *rest), b = [1, 2], 3
    total = [] if args else None
    for x, (y, z) in enumerate(loader):
        loss = model(x)(y)[::2]
        loss.backward(*args)
        lambda q: q + loss
        total.append((yield loss))
        total.append(w := loss)
        kwargs[...] = loss
        model.history[0].append(loss)
        self.history.append(loss)
        del total[:], kwargs
        print(*[l for l in total], **{k: v for k, v in kwargs.items()})
    return [*total]

class Odd(torch.nn.Module):
    x = []
    def step(self, loss=None):
        self.x.append(loss)
        super().step().append(loss)
        (lambda: 0)().append(loss)
"""


@pytest.mark.parametrize("code", ["TL401", "TL402"])
def test_odd_code_does_not_crash(code: str) -> None:
    findings(code, ODD_CODE)
    fixed(code, ODD_CODE)


# ----- loops of any shape (issue 13) ----------------------------------------------------------


def test_tl401_per_step_keys_in_a_while_loop_pulling_batches() -> None:
    """A ``while`` loop has no target: the batch it pulls with ``next`` and a step counter key the log."""
    text = _source(
        """
        it = iter(loader)
        step = 0
        log = {}
        while step < 100:
            x, y = next(it)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            log[step] = loss
            step += 1
        """
    )
    assert len(findings("TL401", text)) == 1
    assert findings("TL401", text.replace("log[step] = loss", "log['last'] = loss")) == []


REINFORCE = """
import torch

def select_action(policy, state):
    m = torch.distributions.Categorical(policy(state))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()

def finish_episode(policy, optimizer, rewards):
    loss = torch.cat([-p * r for p, r in zip(policy.saved_log_probs, rewards)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del policy.saved_log_probs[:]

def main(policy, env, optimizer):
    for episode in range(1000):
        state = env.reset()
        rewards = []
        for t in range(1, 10000):
            state, reward, done = env.step(select_action(policy, state))
            rewards.append(reward)
            if done:
                break
        finish_episode(policy, optimizer, rewards)
"""


def test_tl401_episode_storage_emptied_after_its_backward_is_silent() -> None:
    """REINFORCE keeps one episode's log-probabilities for the episode's backward, then ``del x[:]`` empties them."""
    assert findings("TL401", REINFORCE) == []
    assert len(findings("TL401", REINFORCE.replace("    del policy.saved_log_probs[:]\n", ""))) == 1


METER = """
import torch

class Meter:
    def __init__(self):
        self.total = 0.0

    def {name}(self, value):
        self.total += value.mean()

def train(model, loader, optimizer, criterion, meter):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        meter.{name}(loss)
"""


def test_tl401_fix_on_a_parameter_is_safe_only_where_no_other_module_can_call_it() -> None:
    """Issue 14: ``value.detach()`` crashes a caller elsewhere that passes a float; a private method has none."""
    public = findings("TL401", METER.format(name="update"))
    assert [f[2] for f in public] == ["unsafe"]
    assert "comes from a parameter" in fix_titles("TL401", METER.format(name="update"))[0]
    assert [f[2] for f in findings("TL401", METER.format(name="_update"))] == ["safe"]


@pytest.mark.parametrize(
    "copy, reported",
    [
        ("loss.data.cpu().numpy()", False),  # one value on the host, like loss.item()
        ("loss.data.numpy()", False),
        ("model(x).data.cpu().numpy()", True),  # a whole output per step
    ],
)
def test_tl402_a_host_copy_through_data_of_a_scalar_loss_is_a_number(copy: str, reported: bool) -> None:
    """Round 7 (yandexdataschool's Practical_DL): ``losses.append(loss.data.cpu().numpy())`` is the older spelling
    of ``loss.detach().cpu().numpy()``, which was already read as one number."""
    text = _source(
        f"""
        history = []
        for epoch in range(10):
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                history.append({copy})
        return history
        """
    )
    assert len(findings("TL402", text)) == (1 if reported else 0)
