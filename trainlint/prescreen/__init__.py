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

The package, by question: ``walk`` gathers the facts in one walk of the tree (``TreeFacts``); ``step_memory``,
``evaluation``, ``devices``, ``loaders`` and ``batches`` hold the questions each family of rules asks of them;
``values`` follows what a name may hold; ``nodes`` holds the shapes of single nodes that several of them read, and
``traversal`` the walks they share.
"""

from __future__ import annotations

import ast
from typing import List, Sequence

from trainlint.prescreen.batches import BatchQuestions
from trainlint.prescreen.devices import DeviceQuestions
from trainlint.prescreen.evaluation import EvaluationQuestions
from trainlint.prescreen.loaders import LoaderQuestions
from trainlint.prescreen.step_memory import StepMemoryQuestions
from trainlint.registry import ENTRIES_BY_CODE

__all__ = ["Features", "names_as_written", "screened_codes"]



class Features(StepMemoryQuestions, EvaluationQuestions, DeviceQuestions, LoaderQuestions, BatchQuestions):
    """One module's facts (``walk.TreeFacts``, gathered in one walk) and every family's questions of them: what a
    rule's ``structure`` condition in ``rules/__init__.py`` reads. Each question is asked only by the conditions of
    the rules a file's text triggered, and computed on demand."""


def names_as_written(text: str) -> bool:
    """Whether CPython's tree names everything as the text spells it. Its parser folds identifiers by NFKC
    (``ｋｅｐｔ`` is ``kept``), LibCST does not, so two names a rule tells apart could be one to the screen: a text
    with a word outside strings and comments whose NFKC form differs (an f-string's too: wider) is not screened."""
    if text.isascii():
        return True
    import unicodedata

    if unicodedata.is_normalized("NFKC", text):
        return True
    from trainlint.prefilter import identifier_text

    # what CPython compiled holds nothing but ASCII outside strings and comments except identifiers (and f-strings)
    return unicodedata.is_normalized("NFKC", identifier_text(text))


def screened_codes(tree: ast.AST, codes: Sequence[str], path: str = "") -> List[str]:
    """The rules among ``codes`` whose structural condition holds on ``tree`` (or that declare none); ``path`` is the
    file's, for what its name says (a file of tests)."""
    conditions = [(code, ENTRIES_BY_CODE[code].structure) for code in codes]
    if all(condition is None for _, condition in conditions):
        return list(codes)
    features = Features(tree, path)
    return [code for code, condition in conditions if condition is None or condition(features)]
