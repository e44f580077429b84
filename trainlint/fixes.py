"""Applying rule fixes to a module as CST edits.

Fixes replace nodes by identity; imports and helper definitions are merged
across fixes so that two fixes needing ``import torch`` add it once. Import
handling is done here rather than with ``libcst.codemod`` because importing
the codemod package alone costs more than linting a typical script.
"""

from __future__ import annotations

import sys
from typing import Dict, Iterable, List, Sequence, Set, Tuple

import libcst as cst

from trainlint.analysis import walk
from trainlint.rule import CstFix, Import


class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: Dict[cst.CSTNode, object]) -> None:
        super().__init__()
        self._replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        return self._replacements.get(original_node, updated_node)


class _NameUses(cst.CSTVisitor):
    """Every name a module reads or binds outside its import statements."""

    def __init__(self) -> None:
        super().__init__()
        self.names: Set[str] = set()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk.visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def apply_fixes(module: cst.Module, fixes: Sequence[CstFix]) -> cst.Module:
    """Apply non-overlapping fixes (the caller chooses them) in one transformation."""
    replacements: Dict[cst.CSTNode, object] = {}
    imports: List[Import] = []
    unused: List[Import] = []
    helpers: List[str] = []
    for fix in fixes:
        replacements.update(fix.replacements)
        imports.extend(i for i in fix.imports if i not in imports)
        unused.extend(i for i in fix.unused_imports if i not in unused)
        helpers.extend(h for h in fix.helpers if h not in helpers)
    if replacements:
        module = module.visit(_Replacer(replacements))
    if unused:
        module = _drop_unused_imports(module, unused)
    for helper in helpers:
        module = _insert_helper(module, helper)
    for needed in imports:
        module = _ensure_import(module, needed)
    return module


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _header_end(body: Sequence[cst.CSTNode]) -> int:
    """Index just past the module docstring and the leading block of imports."""
    index = 1 if body and _is_docstring(body[0]) else 0
    while index < len(body) and _is_import_line(body[index]):
        index += 1
    return index


def _has_import(module: cst.Module, needed: Import) -> bool:
    for statement in module.body:
        if not _is_import_line(statement):
            continue
        for small in statement.body:  # type: ignore[attr-defined]
            if needed.name is None and isinstance(small, cst.Import):
                for alias in small.names:
                    dotted = module.code_for_node(alias.name)
                    if alias.asname is None and dotted.split(".")[0] == needed.module:
                        return True
            if needed.name is not None and isinstance(small, cst.ImportFrom) and small.module is not None:
                if module.code_for_node(small.module) != needed.module or isinstance(small.names, cst.ImportStar):
                    continue
                if any(a.asname is None and a.name.value == needed.name for a in small.names):
                    return True
    return False


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) or frozenset(
    {"collections", "functools", "inspect", "itertools", "json", "math", "os", "re", "sys", "typing", "warnings"}
)


def _section(module_name: str) -> int:
    """isort's section order: __future__, the standard library, everything else."""
    top = module_name.split(".")[0]
    return 0 if top == "__future__" else 1 if top in _STDLIB else 2


def _sort_key(module: cst.Module, statement: cst.CSTNode) -> Tuple[int, int, str]:
    """isort's default order: by section, ``import x`` before ``from x import y``, then by module."""
    small = statement.body[0]  # type: ignore[attr-defined]
    if isinstance(small, cst.ImportFrom):
        name = "." if small.module is None else module.code_for_node(small.module)
        return (_section(name), 1, name.lower())
    name = module.code_for_node(small.names[0].name)
    return (_section(name), 0, name.lower())


def _ensure_import(module: cst.Module, needed: Import) -> cst.Module:
    """Add an import where isort would put it: in its section, in alphabetical order."""
    if _has_import(module, needed):
        return module
    code = f"import {needed.module}\n" if needed.name is None else f"from {needed.module} import {needed.name}\n"
    statement = cst.parse_statement(code)
    body = list(module.body)
    first = 1 if body and _is_docstring(body[0]) else 0
    end = _header_end(body)
    key = _sort_key(module, statement)
    index = next((i for i in range(first, end) if _sort_key(module, body[i]) > key), end)
    previous_in_section = index > first and _sort_key(module, body[index - 1])[0] == key[0]
    if index < end:  # before an import
        following = body[index]
        blank_only = all(isinstance(line, cst.EmptyLine) and line.comment is None for line in following.leading_lines)
        if not previous_in_section and blank_only:  # open the group where the following one opened
            statement = statement.with_changes(leading_lines=following.leading_lines)
            following = following.with_changes(leading_lines=[])
        if _sort_key(module, following)[0] != key[0] and not following.leading_lines:
            following = following.with_changes(leading_lines=[cst.EmptyLine()])
        body[index] = following
    else:  # after the last import, or where imports would start
        if index > 0 and not previous_in_section:
            statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
        if index < len(body) and not body[index].leading_lines:
            body[index] = body[index].with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(index, statement)
    return module.with_changes(body=body)


def _drop_unused_imports(module: cst.Module, candidates: Iterable[Import]) -> cst.Module:
    """Drop the candidate imports nothing uses any more, at module level and in function bodies
    (``def main(): from torch.cuda.amp import GradScaler``)."""
    uses = _NameUses()
    walk.visit(module, uses)
    wanted = {(c.module, c.name) for c in candidates}
    module = module.with_changes(body=_kept_statements(module, module.body, wanted, uses.names))
    return module.visit(_LocalImportDropper(module, wanted, uses.names))


def _kept_statements(module: cst.Module, statements: Sequence[cst.CSTNode], wanted, used: Set[str]) -> List[cst.CSTNode]:
    """``statements`` without the unused imports; a dropped statement's leading blank lines and comments pass
    to the statement after it (unless that one has its own), so import groups stay apart."""
    body: List[cst.CSTNode] = []
    orphaned: Sequence[cst.EmptyLine] = ()
    for statement in statements:
        kept = _without_unused(module, statement, wanted, used)
        if not kept:
            orphaned = orphaned or getattr(statement, "leading_lines", ())
            continue
        if orphaned and not kept[0].leading_lines:
            kept[0] = kept[0].with_changes(leading_lines=orphaned)
        orphaned = ()
        body.extend(kept)
    return body


class _LocalImportDropper(cst.CSTTransformer):
    """The same in every function body; a body whose only statements were such imports is left as it was."""

    def __init__(self, module: cst.Module, wanted, used: Set[str]) -> None:
        super().__init__()
        self._module, self._wanted, self._used = module, wanted, used

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        block = updated_node.body
        if not isinstance(block, cst.IndentedBlock):
            return updated_node
        kept = _kept_statements(self._module, block.body, self._wanted, self._used)
        return updated_node.with_changes(body=block.with_changes(body=kept)) if kept else updated_node


def _without_unused(module: cst.Module, statement: cst.CSTNode, wanted, used: Set[str]) -> List[cst.CSTNode]:
    """``statement`` without the wanted import bindings nobody uses any more.

    ``Import(module, name)`` stands for the binding of ``module.name`` under any
    spelling: ``from module import name [as x]`` or ``import module.name as x``.
    """
    if not isinstance(statement, cst.SimpleStatementLine):
        return [statement]
    small_statements = []
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            kept = [alias for alias in small.names if not _unused_binding(module, small, alias, wanted, used)]
            if not kept:
                continue
            if len(kept) != len(small.names):
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                small = small.with_changes(names=kept)
        small_statements.append(small)
    if not small_statements:
        return []
    return [statement.with_changes(body=small_statements)]


def _unused_binding(module: cst.Module, statement, alias: cst.ImportAlias, wanted, used: Set[str]) -> bool:
    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
    if isinstance(statement, cst.ImportFrom):
        if statement.module is None or not isinstance(alias.name, cst.Name):
            return False
        binding = (module.code_for_node(statement.module), alias.name.value)
        local = local or alias.name.value
    else:
        if local is None:  # ``import a.b`` binds ``a``, which other code may use
            return False
        binding = tuple(module.code_for_node(alias.name).rpartition(".")[::2])
    return binding in wanted and local not in used


def _defined_names(module: cst.Module) -> Set[str]:
    return {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}


def _insert_helper(module: cst.Module, helper: str) -> cst.Module:
    statements = list(cst.parse_module(helper).body)
    names = {s.name.value for s in statements if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    if names & _defined_names(module):
        return module
    two_blank = [cst.EmptyLine(), cst.EmptyLine()]
    statements[0] = statements[0].with_changes(leading_lines=two_blank)
    body = list(module.body)
    index = _header_end(body)
    if index < len(body):  # PEP 8: two blank lines after a function, also before the code that follows it
        following = body[index]
        blank = 0
        for line in following.leading_lines:
            if line.comment is not None:
                break
            blank += 1
        missing = [cst.EmptyLine()] * max(0, 2 - blank)
        body[index] = following.with_changes(leading_lines=[*missing, *following.leading_lines])
    body[index:index] = statements
    return module.with_changes(body=body)
