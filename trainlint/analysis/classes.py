"""Classes: the one around a node, and whether a class inherits code this module cannot show.

The linter sees one file. A class whose bases are all defined in it (or are
``object``, ``typing``/``abc`` markers, or torch classes, none of which
touches a subclass's own attributes) has all of its methods in sight; a
subclass of a class imported from elsewhere also runs that class's methods,
which may read, trim or reset attributes the subclass fills (a trainer base
class that logs its ``self.stats`` and then empties them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, Optional

import libcst as cst

from trainlint.analysis.imports import dotted

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

NEUTRAL_BASE_MODULES = ("typing.", "abc.", "torch.")


def enclosing_class(facts: "ModuleFacts", node: cst.CSTNode) -> Optional[cst.ClassDef]:
    """The innermost class around ``node``: whose ``self`` a method's ``self.x`` is."""
    return next((a for a in facts.ancestors(node) if isinstance(a, cst.ClassDef)), None)


def inherits_unseen_code(facts: "ModuleFacts", class_def: cst.ClassDef) -> bool:
    """True when some base of ``class_def``, directly or through bases defined here, is defined elsewhere."""
    defined = {c.name.value: c for c in facts.nodes(cst.ClassDef)}
    return _unseen_base(facts, defined, class_def, frozenset())


def _unseen_base(facts: "ModuleFacts", defined: Dict[str, cst.ClassDef], class_def: cst.ClassDef, seen: FrozenSet[str]) -> bool:
    seen = seen | {class_def.name.value}
    for arg in class_def.bases:
        base = arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value  # ``Generic[T]``
        name = dotted(base) or ""
        if name in seen or name == "object" or (facts.qualified_name(base) or "").startswith(NEUTRAL_BASE_MODULES):
            continue
        if name not in defined or _unseen_base(facts, defined, defined[name], seen):
            return True
    return False
