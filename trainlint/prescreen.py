"""Which triggered rules can have something to say, judged on the tree CPython already built.

The text prefilter (``prefilter.py``) keeps a rule whenever its trigger words
occur; in training-heavy code they nearly always do. The syntax verdict
compiles every file with CPython's parser anyway (about a tenth of LibCST's
cost), so a rule may also declare, beside its triggers in the registry, a
structural condition on that tree: a predicate over :class:`Features`, facts
gathered in one walk. A rule is run only when its condition holds, and LibCST
is imported and the file parsed only when some rule is left.

A condition must hold for every module the rule could report on (a missed
module is a missed finding): ``tests/test_prescreen.py`` runs every fixture
with and without the screen and requires the same findings.
A rule without a condition runs whenever its trigger matches.
"""

from __future__ import annotations

import ast
import re
from typing import List, Sequence

from trainlint.registry import ENTRIES_BY_CODE
from trainlint.step_words import BACKWARD_METHODS, OPTIMIZER_NAME, STEP_HOOK_NAME

# Mirror rules/batches/tl302_float_index_tensors.py: what creates a float tensor, what takes indices.
_FLOAT_CASTS = frozenset({"float", "double", "half", "bfloat16"})
_FLOAT_MAKERS = frozenset(
    {"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "Tensor", "from_numpy", "loadtxt", "genfromtxt"}
)
_FLOAT_WORD = re.compile(r"float|double|half|single")
_INDEX_SINKS = frozenset({"Embedding", "EmbeddingBag", "embedding", "embedding_bag", "cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss"})
_INDEX_KEYS = frozenset({"input_ids", "labels"})


class Features:
    """Facts about one module's tree, gathered in one walk (see the module docstring)."""

    def __init__(self, tree: ast.AST) -> None:
        self.trains = False  # a backward, an optimizer or scaler step, or a step hook's definition
        self.accumulates = False  # `x += v`, `x = x + v`, `d[k] = v`, `xs.append(v)` with v not a constant
        self.appends = False  # `xs.append(...)` / `xs.extend(...)`
        self.handles_errors = False  # a `try` with an `except`
        self.creates_float = False  # `.float()`, `FloatTensor(...)`, `from_numpy`, a float `dtype=`, `.to(torch.float16)`
        self.takes_indices = False  # an embedding, an index loss, `input_ids`/`labels` as a keyword or a key
        for node in ast.walk(tree):
            kind = type(node)
            if kind is ast.Call:
                self._call(node)  # type: ignore[arg-type]
                self._float_or_index_call(node)  # type: ignore[arg-type]
            elif kind is ast.Dict:
                self.takes_indices = self.takes_indices or any(_is_index_key(key) for key in node.keys)  # type: ignore[attr-defined]
            elif kind is ast.Subscript:
                self.takes_indices = self.takes_indices or _is_index_key(node.slice)  # type: ignore[attr-defined]
            elif kind is ast.AugAssign:
                if isinstance(node.op, (ast.Add, ast.Sub)) and not isinstance(node.value, ast.Constant):  # type: ignore[attr-defined]
                    self.accumulates = True
            elif kind is ast.Assign:
                value = node.value  # type: ignore[attr-defined]
                if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
                    self.accumulates = True
                elif not isinstance(value, ast.Constant) and any(isinstance(t, ast.Subscript) for t in node.targets):  # type: ignore[attr-defined]
                    self.accumulates = True
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                if STEP_HOOK_NAME.search(node.name):  # type: ignore[attr-defined]
                    self.trains = True
            elif kind is ast.Try or kind.__name__ == "TryStar":
                self.handles_errors = self.handles_errors or bool(node.handlers)  # type: ignore[attr-defined]

    def _call(self, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        method = func.attr
        if method in BACKWARD_METHODS:
            self.trains = True
        elif method == "step" and OPTIMIZER_NAME.search(_last_name(func.value)):
            self.trains = True
        elif method in ("append", "extend"):
            self.appends = True
            if method == "append" and len(call.args) == 1 and not isinstance(call.args[0], ast.Constant):
                self.accumulates = True


    def _float_or_index_call(self, call: ast.Call) -> None:
        name = _last_name(call.func)
        if (name in _FLOAT_CASTS and not call.args) or name in _FLOAT_MAKERS:
            self.creates_float = True
        elif name in ("to", "type", "astype") and any(_FLOAT_WORD.search(ast.dump(a)) for a in call.args):
            self.creates_float = True
        if name in _INDEX_SINKS:
            self.takes_indices = True
        for keyword in call.keywords:
            if keyword.arg == "dtype" and _FLOAT_WORD.search(ast.dump(keyword.value)):
                self.creates_float = True
            elif keyword.arg in _INDEX_KEYS:
                self.takes_indices = True


def _is_index_key(node: object) -> bool:
    return isinstance(node, ast.Constant) and node.value in _INDEX_KEYS


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def screened_codes(tree: ast.AST, codes: Sequence[str]) -> List[str]:
    """The rules among ``codes`` whose structural condition holds on ``tree`` (or that declare none)."""
    conditions = [(code, ENTRIES_BY_CODE[code].structure) for code in codes]
    if all(condition is None for _, condition in conditions):
        return list(codes)
    features = Features(tree)
    return [code for code, condition in conditions if condition is None or condition(features)]
