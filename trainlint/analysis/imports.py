"""Which qualified name each local name stands for, from the module's imports.

Flow-insensitive on purpose: an import inside a function, a ``try`` block or
an ``if TYPE_CHECKING`` still tells what a name means in this module.
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional, Union

import libcst as cst



def dotted(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


class _ImportCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.bindings: Dict[str, str] = {}

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = dotted(alias.name)
            if name is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bindings[alias.asname.name.value] = name
            else:
                top = name.split(".")[0]
                self.bindings[top] = top
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return False
        module = dotted(node.module)
        if module is None:
            return False
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else None
            if name is None:
                continue
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            self.bindings[local] = f"{module}.{name}"
        return False


class ImportTable:
    """Resolve expressions such as ``amp.autocast`` to ``torch.cuda.amp.autocast``."""

    def __init__(self, statements: Iterable[Union[cst.Import, cst.ImportFrom]]) -> None:
        """From every import statement of the module, in source order (later bindings win)."""
        collector = _ImportCollector()
        for statement in statements:
            if isinstance(statement, cst.Import):
                collector.visit_Import(statement)
            else:
                collector.visit_ImportFrom(statement)
        self.bindings = collector.bindings

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.bindings.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def local_name_for_module(self, module: str) -> Optional[str]:
        """The local name bound to ``module`` itself (``torch`` or ``th``), if any."""
        for local, target in self.bindings.items():
            if target == module:
                return local
        return None
