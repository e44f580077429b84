"""The ranges computed per statement (top-level, or the innermost where it is found once) are PositionProvider's, node for node."""

from __future__ import annotations

from pathlib import Path
from typing import List

import libcst as cst
import pytest

from trainlint.analysis import ModuleFacts
from trainlint.node_positions import NodePositions, all_positions

REPO = Path(__file__).resolve().parents[1]

# Layouts where a statement's first line is easy to get wrong.
TRICKY = [
    "# header comment\n\nimport torch\n\n\n# about x\nx = 1; y = 2;\n",
    "@decorator\n# between\n@other(\n    1,\n)\ndef f(a,\n      b):\n    return a  # trailing\n    # footer of the block\n\n# dedented comment\nclass C: pass\n",
    "# only a comment\n\n# and another\n\nif x:\n    pass\nelse:\n    y = (\n        1\n    )\n# module footer\n\n",
    "x = 1\r\ny = 2\r\n\r\ndef f():\r\n    return 'a\\\nb'\r\n",
    "x = '''\nmany\nlines\n'''\nz = \\\n    3\n\x0c\nasync def g():\n    async with a as b:\n        await b\n",
    "x = 1\nx = 1\n\n@d\n\ndef f(): pass\nx = 1\n",  # repeated statements, a blank line inside the decorators
    "for i in range(3):\n\tprint(i)\nwhile False: break\ntry:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n",
    "match p:\n    case [a, *b]:\n        pass\n    case _:\n        pass\n",
    "x = 1",  # no final newline
    # statements below the top level: repeated ones (found twice: their top-level statement is generated), a block
    # indented otherwise than the module, a comment leading a nested statement, a last line without its newline
    "def f():\n    x = 1\n    x = 1\n    if c:\n        x = 1\n        y = [\n            2,\n        ]\n",
    "class C:\n    def m(self):\n      # two spaces here\n      return self\n\n    z = 1\n",
    "def f():\n    for a in b:\n        with g(a) as h:\n            h.run()\n    return 1",
]


def _sources() -> List[Path]:
    return sorted((REPO / "fixtures").rglob("*.py")) + sorted((REPO / "reference_trainer").rglob("*.py"))


def _check_every_node(text: str) -> None:
    module = cst.parse_module(text)
    facts = ModuleFacts(module, text)
    expected = all_positions(module)
    positions = NodePositions(module, text, facts.parents)
    for node in facts.parents:
        assert positions[node] == expected[node], (type(node).__name__, module.code_for_node(node)[:80])
    # each node was found in its own statement: nothing fell back to the whole module
    assert positions._everything is None


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_layouts_give_the_provider_s_ranges(text: str) -> None:
    _check_every_node(text)


def test_every_node_of_the_repository_s_scripts_gets_the_provider_s_range() -> None:
    for path in _sources():
        _check_every_node(path.read_text(encoding="utf-8"))


def test_a_statement_below_the_top_level_is_generated_alone() -> None:
    """A training script's ``main`` is one top-level statement: a node inside it costs its own statement's code."""
    text = "def main():\n    model = build()\n    for batch in loader:\n        loss = model(batch)\n        loss.backward()\n"
    module = cst.parse_module(text)
    facts = ModuleFacts(module, text)
    positions = NodePositions(module, text, facts.parents)
    backward = next(n for n in facts.parents if isinstance(n, cst.Call) and module.code_for_node(n) == "loss.backward()")
    assert positions[backward] == all_positions(module)[backward]
    assert not positions._generated and len(positions._inner_generated) == 1  # neither `main` nor the loop


def test_a_node_outside_every_statement_falls_back_to_the_whole_module() -> None:
    text = "x = 1\n# footer\n"
    module = cst.parse_module(text)
    facts = ModuleFacts(module, text)
    positions = NodePositions(module, text, facts.parents)
    (footer,) = module.footer
    assert positions[footer] == all_positions(module)[footer] and positions._everything is not None


def test_a_statement_not_where_cpython_puts_it_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import trainlint.node_positions as node_positions

    text = "x = 1\nx = 1\ny = 2\n"
    module = cst.parse_module(text)
    monkeypatch.setattr(node_positions, "_statement_lines", lambda module, text, tree: [2, 2, 3])  # the first one is wrong
    positions = NodePositions(module, text, ModuleFacts(module, text).parents)
    first = module.body[0]
    assert positions[first] == all_positions(module)[first] and positions._everything is not None
