"""Rule lookup and selection (``--select``/``--ignore``/``--extend-select``).

Selection works on the registry's plain entries; rule classes are imported
only when a file actually needs parsing.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Type

from trainlint.diagnostics import SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME
from trainlint.rules import RULES, RuleEntry

if TYPE_CHECKING:
    from trainlint.rule import Rule

ENTRIES_BY_CODE: Dict[str, RuleEntry] = {entry.code: entry for entry in RULES}
ENTRIES_BY_NAME: Dict[str, RuleEntry] = {entry.name: entry for entry in RULES}
ALL_CODES: FrozenSet[str] = frozenset(ENTRIES_BY_CODE)
VALID_SELECTORS = "(valid: a rule code, a code prefix such as `TL2`, a rule name, or `ALL`; see `trainlint rules`)"


class SelectorError(ValueError):
    """An unknown rule selector; the message names where it came from."""


def find_entry(code_or_name: str) -> Optional[RuleEntry]:
    return ENTRIES_BY_CODE.get(code_or_name.upper()) or ENTRIES_BY_NAME.get(code_or_name.lower())


@functools.lru_cache(maxsize=None)
def load_rule(code: str) -> Type["Rule"]:
    """Import a rule's class, binding its registry identity onto it."""
    entry = ENTRIES_BY_CODE[code]
    module = importlib.import_module(f"trainlint.rules.{entry.module}")
    cls = getattr(module, entry.cls)
    cls.code = entry.code
    cls.name = entry.name
    return cls


def expand_selector(selector: str, origin: str) -> FrozenSet[str]:
    """Codes matched by one selector: ``ALL``, a code, a code prefix or a rule name."""
    text = selector.strip()
    if text.upper() == "ALL":
        return ALL_CODES
    if text.upper() == SYNTAX_ERROR_CODE or text.lower() == SYNTAX_ERROR_NAME:
        return frozenset()  # always reported; selecting it is harmless
    by_name = ENTRIES_BY_NAME.get(text.lower())
    if by_name is not None:
        return frozenset({by_name.code})
    prefix = text.upper()
    matched = frozenset(code for code in ALL_CODES if code.startswith(prefix))
    if not matched or not prefix.startswith("TL"):
        raise SelectorError(f"Unknown rule selector `{text}` in {origin}{did_you_mean(text)} {VALID_SELECTORS}")
    return matched


def did_you_mean(text: str) -> str:
    """``; did you mean `X`?`` for the rule code or name closest to ``text``, or nothing.

    A name is often typed by its first words (``cuda-amp``), which a plain
    similarity ratio rejects against the long full name, so a prefix comes first.
    """
    import difflib  # only for a mistyped selector: not on every run's start-up path

    lowered = text.strip().lower()
    by_prefix = sorted(name for name in ENTRIES_BY_NAME if lowered and name.startswith(lowered))
    close = by_prefix or difflib.get_close_matches(text, sorted(ALL_CODES) + sorted(ENTRIES_BY_NAME), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


def expand_selectors(selectors: Iterable[str], origin: str) -> FrozenSet[str]:
    codes: FrozenSet[str] = frozenset()
    for selector in selectors:
        codes |= expand_selector(selector, origin)
    return codes


def resolve_selection(layers: Sequence[Tuple[str, Optional[Sequence[str]], Sequence[str], Sequence[str]]]) -> FrozenSet[str]:
    """Fold (origin, select, extend_select, ignore) layers, lowest precedence first.

    A layer's ``select`` replaces what came before; ``extend-select`` adds and
    ``ignore`` removes, so a later layer (the command line) wins.
    """
    selected = ALL_CODES
    for origin, select, extend_select, ignore in layers:
        if select is not None:
            selected = expand_selectors(select, origin)
        selected |= expand_selectors(extend_select, origin)
        selected -= expand_selectors(ignore, origin)
    return selected


def split_selectors(values: Iterable[str]) -> List[str]:
    """Accept both repeated flags and comma-separated lists."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
