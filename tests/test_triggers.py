"""Every file a rule reports on matches one of its registry triggers.

Findings are computed with the prefilter bypassed, so a trigger that is too
narrow shows up here as a finding the prefilter would have hidden.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

import libcst as cst

from tests.fixture_cases import bad_cases, case_id, code_of, ok_cases
from trainlint.engine import RuleSettings, _run_rules, lint_source
from trainlint.prefilter import _DOUBLE, _SINGLE, _TRIPLE_DOUBLE, _TRIPLE_SINGLE, code_text, occurs, triggered_codes
from trainlint.registry import ALL_CODES


@pytest.mark.parametrize("path", bad_cases(), ids=case_id)
def test_bad_cases_trigger_their_rule(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert code_of(path) in triggered_codes(text, ALL_CODES)


@pytest.mark.parametrize("path", bad_cases() + ok_cases(), ids=case_id)
def test_every_reported_rule_is_triggered(path: Path) -> None:
    """Run every rule on the parsed file, prefilter bypassed: what they report must be triggered."""
    text = path.read_text(encoding="utf-8")
    settings = RuleSettings(codes=ALL_CODES)
    unfiltered = _run_rules(cst.parse_module(text), text, str(path), sorted(ALL_CODES), settings)
    reported = {d.code for d in unfiltered.diagnostics}
    assert reported <= set(triggered_codes(text, ALL_CODES))
    assert reported == {d.code for d in lint_source(text, str(path), settings).diagnostics}


def test_a_tuple_trigger_needs_every_part() -> None:
    assert occurs(("append(", "[]"), "x = []\nx.append(1)")
    assert not occurs(("append(", "[]"), "x.append(1)")
    assert occurs(("append(", ("[]", "list(")), "x = list()\nx.append(1)")
    assert not occurs(("append(", ("[]", "list(")), "x = ()\nx.append(1)")
    assert occurs("pin_memory", "DataLoader(pin_memory=True)")


@pytest.mark.parametrize(
    "source",
    [
        "# call loss.backward() once per step\n",
        'def run(self):\n    """Call loss.backward() before this."""\n',
        "class A:\n    '''\n    >>> loss.backward()\n    '''\n",
        'log(\n    """kept for backward compatibility"""\n)\n',
        "x = 1  # DataLoader(ds, pin_memory=True)\n",
    ],
)
def test_triggers_in_comments_and_docstrings_are_prose(source: str) -> None:
    assert triggered_codes(source, ALL_CODES) == []


@pytest.mark.parametrize(
    "source, code",
    [
        ('kwargs = {"pin_memory": True}\nloader = DataLoader(ds, **kwargs)\n', "TL101"),  # strings are code
        ('tag = "#"; loss.backward()\n', "TL401"),  # a # in a string opens no comment
        ("note = 'it''s'  # \"\nloss.backward()\n", "TL401"),  # a quote in a comment opens no string
        ('doc = """about backward"""\n', "TL401"),  # a triple-quoted string inside a statement is kept
        ('s = "a \\" # b"; loss.backward()\n', "TL401"),  # an escaped quote does not end the string
    ],
)
def test_code_and_strings_around_prose_still_trigger(source: str, code: str) -> None:
    assert code in triggered_codes(source, ALL_CODES)


@pytest.mark.parametrize(
    "test", ['"out of memory" in str(e)', '"OOM" in str(e)', '"oom" in str(e).lower()', "isinstance(e, OutOfMemoryError)"]
)
def test_an_oom_handler_triggers_in_any_case(test: str) -> None:
    """TL403 reads the message with ``OOM_MESSAGE``, in any case: so does its trigger."""
    source = f"for x in loader:\n    try:\n        loss.backward()\n    except RuntimeError as e:\n        if {test}:\n            continue\n"
    assert "TL403" in triggered_codes(source, ALL_CODES)


def test_code_text_drops_only_prose() -> None:
    source = 'def f():\n    """Doc."""\n    return "#x"  # note\n'
    assert code_text(source) == 'def f():\n\n    return "#x"  \n'


# What `code_text` removes, written as the one substitution it was first built as (trying this expression at every
# character ran ~1.7x slower than the scan from quote to quote that replaced it): the reference it must equal.
_STRINGS = f"{_TRIPLE_DOUBLE}|{_TRIPLE_SINGLE}|{_DOUBLE}|{_SINGLE}"
_REFERENCE_PROSE = re.compile(
    rf"^[ \t]*[A-Za-z]{{0,2}}(?:{_TRIPLE_DOUBLE}|{_TRIPLE_SINGLE})|(?P<string>{_STRINGS})|#[^\r\n]*", re.MULTILINE | re.DOTALL
)
# The pieces that decide where prose starts and ends: quotes of both kinds, backslashes, comments, line ends of
# both kinds, indentation and string prefixes.
_PIECES = ['"', '"""', "\'", "\'\'\'", "\\", "#", "\n", "\r\n", "\r", "  ", "\t", "r", "rb", "f", "x = ", "abc", "(", ")"]


@pytest.mark.parametrize("seed", range(40))
def test_code_text_equals_its_reference_on_random_text(seed: int) -> None:
    """Random mixtures of quotes, comments, escapes and line ends: the quote-to-quote scan removes what the reference
    substitution removes, character for character (a comparison that fails on any difference)."""
    import random

    chooser = random.Random(seed)
    for _ in range(200):
        text = "".join(chooser.choice(_PIECES) for _ in range(chooser.randint(1, 30)))
        assert code_text(text) == _REFERENCE_PROSE.sub(r"\g<string>", text), repr(text)


_HISTORY = "self.history = []\nself.history.append(x)\n"


@pytest.mark.parametrize(
    "per_step, triggered",
    [
        ("loss.backward()", True),
        ("optimizer.step()", True),
        ("self.G_optim.step()", True),
        ("gen_opt.step()", True),
        ("self.grad_scaler.step(optimizer)", True),
        ("def training_step(self, batch):", True),
        ("def step(self):", False),  # a hook only in a module that trains: there the backward or step triggers
        ("async def step_end(self):", True),
        ("def on_train_batch_end(self, outputs):", True),
        ("latents = self.scheduler.step(noise, t, latents)", False),  # a diffusion pipeline, not training
        ("self._step_index += 1", False),
    ],
)
def test_history_rule_triggers_only_where_code_runs_per_training_step(per_step: str, triggered: bool) -> None:
    assert ("TL402" in triggered_codes(_HISTORY + per_step + "\n", ALL_CODES)) is triggered


@pytest.mark.parametrize(
    "history, triggered",
    [("self.h = []\nself.h.append (x)", True), ("self.h = [ ]\nself.h.append(x)", True),
     ("self.h = list ()\nself.h.extend(xs)", True), ("self.h = defaultdict( list )\nself.h[k].append(x)", True),
     ("self.h = {'loss': []}\nself.h['loss'].appendleft(x)", True), ("self.h = set()\nself.h.add(x)", False),
     ("self.h = [0]\nself.h[0] = x", False)],
)
def test_history_rule_triggers_on_every_growth_and_list_the_rule_reads(history: str, triggered: bool) -> None:
    """TL402's `GROWING_METHODS` and `_history_shape`, however spaced."""
    assert ("TL402" in triggered_codes(history + "\nloss.backward()\n", ALL_CODES)) is triggered


_SPLIT_NAMES = [
    "val_loader", "Val_Loader", "VALID_DL", "testloader", "eval_dataloaders", "dev_set", "loader_val", "DataLoader_Test",
    "dl_dev", "interval_data", "contest_data", "latest_ds", "self.val_dataloader()", "loaders['val']", 'splits[ "Test" ]',
    "loaders['train']", "valuation_loader", "data_loader_valid", "x.test_iter", "_val_loader", "loader_vals",
    'loaders[r"val"]', "loaders[('dev')]", "loaders[b'val']", 'loaders["""val"""]',
]


@pytest.mark.parametrize("text", _SPLIT_NAMES)
def test_the_held_out_loader_trigger_matches_what_one_plain_pattern_matches(text: str) -> None:
    """The trigger is written for the regular expression engine's fast scan (a class of first letters, no leading
    group); it must match exactly what the plain case-insensitive pattern it replaces matches."""
    from rules import _HELD_OUT_LOADER
    from trainlint.step_words import HELD_OUT_SPLITS, SPLIT_LOADER_PREFIXES, SPLIT_LOADER_SUFFIXES

    plain = re.compile(
        rf"(?i)\b(?:{HELD_OUT_SPLITS})_?(?:{SPLIT_LOADER_SUFFIXES})s?\b"
        rf"|(?:{SPLIT_LOADER_PREFIXES})_?(?:{HELD_OUT_SPLITS})\b"
        rf"|\[[\s(]*[ru]?[\"']{{1,3}}(?:{HELD_OUT_SPLITS})[\"']{{1,3}}[\s)]*\]"
    )
    assert occurs((_HELD_OUT_LOADER,), text) is bool(plain.search(text))


@pytest.mark.parametrize(
    "text, found",
    [("def training_step(self):", True), ("undef training_step(x)", False), ("def on_train_batch_end(s):", True),
     ("x.backward()", True), ("self.G_optim.step()", True), ("scheduler.step()", False), ("def prepare_extra_step_kwargs(", False),
     # an item of a container of optimizers (`optimizer_name_match`), a line continuation, a hook's type parameters
     ("self.optimizers[0].step()", True), ('opts["g"] . step ()', True), ("opts[idx[0]].step()", True),
     ("optimizer \\\n    .step()", True), ("def train_step[T](self, batch: T):", True), ("schedulers[0].step()", False),
     ("def _step(self, batch):", True), ("(opt).step()", True), ("opts[names[order[i]]].step()", True)],
)
def test_per_step_code_alternatives(text: str, found: bool) -> None:
    from rules import _PER_STEP_CODE

    assert occurs((_PER_STEP_CODE,), text) is found


@pytest.mark.parametrize(
    "text, found",
    [
        *((text, True) for text in (
            "x = torch.FloatTensor(3)", "t = Tensor(rows)", "t = torch.Tensor (rows)", "from torch import Tensor as T",
            "a = np.zeros(3)", "a = torch.zeros \\\n (3)", "a = x.float()", "a = x.float", "a = torch.from_numpy(a)",
            "dtype = torch.float16", "x.to(torch.half)", "x.type(torch.DoubleTensor)", "ones(2)", "torch.empty(2)",
            "x.bfloat16()", "BFloat16Tensor", "y = x.to(dtype=torch.float32)", 'np.array(ids, dtype="float32")',
            "dtype=torch.single", "a.astype(np.float64)", "np.loadtxt(path)", "x.to(next(m.parameters()).device, torch.float32)",
        )),
        *((text, False) for text in (
            "t = LongTensor(rows)", "a = new_zeros(3)", "dtype=dt", "x.to(device)", "x.type('torch.LongTensor')", "t_ones(2)",
            "is_empty(x)", "x.long()",
        )),
    ],
)
def test_the_float_tensor_trigger_reads_the_words_of_float_makers_and_dtypes(text: str, found: bool) -> None:
    """TL302's float side: the words a float dtype or maker is spelled with wherever they stand in a call, and the
    makers of float32 by name; each pattern led by a literal for the engine's fast scan."""
    from rules import _FLOAT_TENSOR

    assert occurs((_FLOAT_TENSOR,), text) is found


@pytest.mark.parametrize(
    "text, found",
    [("model.eval()", True), ("model.eval ()", True), ("model.train(False)", True), ("model.train( False )", True),
     ("model.train(mode=False)", True), ("model.train(mode = (False))", True), ("model.train(mode=( False ))", True), ("model.train()", False),
     ("model.train(True)", False), ("model.train(mode=True)", False), ("evaluate(model)", False)],
)
def test_the_eval_mode_trigger_reads_what_mode_set_reads(text: str, found: bool) -> None:
    """`steps._mode_set` takes `m.eval()` and `m.train(False)` with its argument by any keyword, however spaced."""
    from rules import _EVAL_MODE

    assert occurs((_EVAL_MODE,), text) is found


@pytest.mark.parametrize(
    "text, found",
    [("import torch as th\nx = th.load(p)", True), ("from numpy import load\nx = load(p)", True),
     ("from numpy import (\n    array,\n    load,\n)", True), ("from pandas import read_csv as table", True),
     ("x = np.load (p)", True), ("from numpy import savez, \\\n    load", True), ("x = (np.\n     load(p))", True), ("import numpy as np\nimport torch\nx = json.load(f)", False),
     ("from torch import nn\nmodel.load_state_dict(state)", False)],
)
def test_the_whole_file_read_trigger_follows_the_readers_the_rule_resolves(text: str, found: bool) -> None:
    """TL103's readers by the qualified names its rule resolves: through a module alias, an import of the reader."""
    from rules import _WHOLE_FILE_READ

    assert occurs((_WHOLE_FILE_READ,), text) is found


@pytest.mark.parametrize(
    "text, found",
    [("x.to(d)", True), ("x.cuda ()", True), ("y = (x.float().\n     to(gpu))", True), ("torch.tensor(a, device = d)", True), ("import torch.cuda as tc", True),
     ("T = torch.cuda . FloatTensor", True), ("ds.from_tensor_slices(a)", True), ("model.fit (a)", True),
     ("x.cpu()", False), ("auto_cuda = 1", False)],
)
def test_the_move_trigger_reads_moves_however_spaced(text: str, found: bool) -> None:
    from rules import _MOVE

    assert occurs((_MOVE,), text) is found


class _CountingPattern:
    """A trigger part that counts how often it is searched."""

    def __init__(self) -> None:
        self.searches = 0

    def search(self, text: str) -> None:
        self.searches += 1


def test_a_part_shared_by_triggers_is_searched_once_per_text() -> None:
    """TL402, TL403 and TL405 share the per-step pattern: the prefilter asks it once per text, not once per rule."""
    part = _CountingPattern()
    seen: dict = {}
    assert not occurs(("a", part), "a b", seen) and not occurs((("x", part),), "a b", seen)
    assert part.searches == 1
    occurs((part,), "a b")
    assert part.searches == 2  # no answers kept between texts


_PREFIXES = (".", "opt", "opts[0]", "(opt)", "import (", "import x", "train(", "[", "list", "def ", "def _step", "eval",
             "input_ids", "Embedding", "cuda", "np", "torch", "numpy", "loaders[", "append", "device")


@pytest.mark.parametrize("line_end", ["\n", "\r\n", ""])
def test_no_trigger_backtracks_over_lines_of_hashes(line_end: str) -> None:
    """A gap steps over comments (`_GAP`); a comment it could stop inside would let the engine try every split of a
    line of `#`s, exponential in their number (a comment banner cost minutes on one diffusers file). Linear: at once."""
    text = "".join(f"{prefix} # {'#' * 40}{line_end}{prefix} \\{line_end}# {'# ' * 40}{line_end}" for prefix in _PREFIXES)
    started = time.perf_counter()
    triggered_codes(text * 20, ALL_CODES)
    assert time.perf_counter() - started < 5
