"""The language server's incremental parse gives LibCST's full parse, and parses again only what changed."""

from __future__ import annotations

from pathlib import Path
from typing import List

import libcst as cst
import pytest

from trainlint.engine import RuleSettings, lint_source, python_tree
from trainlint.incremental_parse import IncrementalParser
from trainlint.registry import ALL_CODES

REPO = Path(__file__).resolve().parents[1]

# Layouts where the cut between two statements, or what a statement keeps, is easy to get wrong.
TRICKY = [
    "# header comment\n\nimport torch\n\n\n# about x\nx = 1; y = 2;\nz = 3\n",
    "@decorator\n# between\n@other(\n    1,\n)\ndef f(a,\n      b):\n    return a  # trailing\n    # footer of the block\n\n# dedented comment\nclass C: pass\n",
    "# only a comment\n\n# and another\n\nif x:\n    pass\nelse:\n    y = (\n        1\n    )\n# module footer\n\n",
    "x = 1\r\ny = 2\r\n\r\ndef f():\r\n    return 'a\\\nb'\r\n",
    "x = '''\nmany\nlines\n'''\nz = \\\n    3\n\x0c\nasync def g():\n    async with a as b:\n        await b\n",
    "x = 1\nx = 1\n\n@d\n\ndef f(): pass\nx = 1\n",  # the same statement three times
    "for i in range(3):\n\tprint(i)\nwhile False: break\ntry:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n",
    "match p:\n    case [a, *b]:\n        pass\n    case _:\n        pass\nx = 1\n",
    # At the end of a text LibCST 1.9 drops the blank line before an indented comment; between statements it keeps it.
    "def f():\n    pass\n\n   # indented, after a blank line\nx = 1\n\n   # again, at the end\n",
    "def f():\n  return 1\n\ndef g():\n    return 2\n",  # the first block sets the default indent
    "if a: pass\nelse:\n  b = 1\ndef g():\n    return 2\n",
    "x = 1\ny = 2",  # no final newline
    "x = 1\r\ny = 2\nz = 3\r\n",  # mixed newlines
]


def _statement_edits(text: str) -> List[str]:
    """The text with each top-level statement in turn given a trailing comment (and with it deleted)."""
    edits = []
    lines = _statement_cuts(text)
    for number in range(len(lines)):
        before, chunk, after = "".join(lines[:number]), lines[number], "".join(lines[number + 1 :])
        body = chunk.rstrip("\r\n")
        edits.append(before + body + "  # edited" + chunk[len(body) :] + after)
        if len(lines) > 1:
            edits.append(before + after)
    return edits


def _statement_cuts(text: str) -> List[str]:
    from trainlint.incremental_parse import _chunk_texts

    texts = _chunk_texts(text, python_tree(text, "t.py")[0])
    assert texts is not None and "".join(texts) == text
    return texts


def _assert_same(module: cst.Module, text: str) -> None:
    expected = cst.parse_module(text)
    assert module.deep_equals(expected)
    assert module.code == expected.code


@pytest.mark.parametrize("text", TRICKY)
def test_each_edit_gives_the_full_parse(text: str) -> None:
    parser = IncrementalParser()
    _assert_same(parser.parse(text, python_tree(text, "t.py")[0]), text)
    for edited in _statement_edits(text):
        tree = python_tree(edited, "t.py")[0]
        if tree is None:
            continue
        _assert_same(parser.parse(edited, tree), edited)
        _assert_same(parser.parse(text, python_tree(text, "t.py")[0]), text)  # back: the edited statement is new again


def test_only_the_edited_statement_is_parsed_again() -> None:
    text = "import torch\n\n\ndef f(x):\n    return x + 1\n\n\nclass C:\n    y = 2\n"
    parser = IncrementalParser()
    first = parser.parse(text, python_tree(text, "t.py")[0])
    assert parser.reused == 0  # the first version is parsed whole
    edited = text.replace("x + 1", "x + 2")
    second = parser.parse(edited, python_tree(edited, "t.py")[0])
    assert parser.reused == 2
    _assert_same(second, edited)
    assert second.body[0] is first.body[0]
    assert second.body[2] is first.body[2]  # the class is the node parsed before, with its leading lines
    assert second.body[1].body is not first.body[1].body
    again = text.replace("x + 1", "x + 3")
    third = parser.parse(again, python_tree(again, "t.py")[0])
    assert third.body[0] is first.body[0] and third.body[2] is first.body[2]


def test_a_repeated_statement_is_a_node_of_its_own() -> None:
    text = "x = 1\nx = 1\ny = 2\n"
    parser = IncrementalParser()
    parser.parse(text, python_tree(text, "t.py")[0])
    edited = text + "x = 1\n"
    module = parser.parse(edited, python_tree(edited, "t.py")[0])
    _assert_same(module, edited)
    assert len({id(statement) for statement in module.body}) == 4


def test_a_block_indented_otherwise_than_the_first_is_parsed_whole() -> None:
    text = "def f():\n  return 1\n\ndef g():\n    return 2\n"
    parser = IncrementalParser()
    parser.parse(text, python_tree(text, "t.py")[0])
    edited = text.replace("return 2", "return 3")  # parsed alone, g's block would be the default indent
    module = parser.parse(edited, python_tree(edited, "t.py")[0])
    assert parser.reused == 0
    _assert_same(module, edited)
    assert module.body[1].body.indent == "    "


def test_code_that_does_not_parse_raises_as_the_full_parse_does() -> None:
    text = "x = 1\ny = 2\n"
    parser = IncrementalParser()
    parser.parse(text, python_tree(text, "t.py")[0])
    with pytest.raises(cst.ParserSyntaxError):
        parser.parse("x = 1\ny = (\n", None)


def test_the_server_script_lints_the_same_after_edits() -> None:
    text = (REPO / "fixtures/TL201_cuda_amp_on_other_device/bad_seed_training_loop.py").read_text(encoding="utf-8")
    text += "\n\n" + (REPO / "reference_trainer/loop.py").read_text(encoding="utf-8").replace("from __future__ import annotations\n", "")
    settings = RuleSettings(ALL_CODES)
    parser = IncrementalParser()
    lint_source(text, "train.py", settings, parser=parser)
    edits = [text.replace("lr: float = 0.005", "lr: float = 0.01"), text.replace("\n\n\n", "\n\n# note\n\n", 1), text]
    assert text not in edits[:2]
    for edited in edits:
        expected = lint_source(edited, "train.py", settings)
        found = lint_source(edited, "train.py", settings, parser=parser)
        assert parser.reused
        assert found.diagnostics == expected.diagnostics and expected.diagnostics
        assert found.module.code == edited


def test_the_index_of_untouched_statements_is_the_one_built_before() -> None:
    from trainlint.analysis import ModuleFacts, walk

    text = TRICKY[1] + TRICKY[6] + "def h(a):\n    return [a.b(c) for c in a]\n"
    parser = IncrementalParser()
    kinds = (cst.Call, cst.Name, cst.FunctionDef, cst.Attribute)
    for version in (text, text.replace("return a", "return a.b"), text.replace("while False", "while True")):
        module = parser.parse(version, python_tree(version, "t.py")[0])
        facts = ModuleFacts(module, version, parser.indexes)
        reused = [s for s in module.body if s in parser.indexes.statements]
        built = list(facts.parents.items())
        walk.forget()
        fresh = ModuleFacts(module, version)
        assert built == list(fresh.parents.items())  # the same nodes, parents and pre-order
        assert all(facts.nodes(kind) == fresh.nodes(kind) for kind in kinds) and facts.nodes(*kinds) == fresh.nodes(*kinds)
        assert set(parser.indexes.statements) == set(module.body)
        walk.forget()
    assert reused  # the last version took the index of the statements it did not change


def test_ranges_of_an_untouched_statement_are_taken_only_where_it_stands_where_it_stood() -> None:
    from trainlint.analysis import ModuleFacts, walk
    from trainlint.node_positions import NodePositions, all_positions

    text = "import torch\n\n\ndef f(x):\n    return torch.ones(x)\n\n\ny = 1\n"
    edits = [text, text.replace("y = 1", "y = 2"), text.replace("import torch\n", "import torch\nimport os\n")]
    parser = IncrementalParser()
    generated = []
    for version in edits:
        module = parser.parse(version, python_tree(version, "t.py")[0])
        facts = ModuleFacts(module, version, parser.indexes)
        positions = NodePositions(module, version, facts.parents, None, parser.indexes.positions)
        expected = all_positions(module)
        call = next(node for node in facts.parents if isinstance(node, cst.Call))
        assert positions[call] == expected[call]
        generated.append(parser.indexes.positions[next(s for s in module.body if isinstance(s, cst.FunctionDef))])
        walk.forget()
    assert generated[1] is generated[0]  # the edit below f: its ranges are those of the version before
    assert generated[2] is not generated[1] and generated[2].place[0] == generated[1].place[0] + 1  # moved down a line
