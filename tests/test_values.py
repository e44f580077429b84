"""Literal values through names, conditionals, ``or`` defaults and argparse options; the one string helper."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from trainlint.analysis import ModuleFacts
from trainlint.analysis.values import Values, string_value


def values_of_last(source: str, name: str):
    """The literal values of the last read of ``name`` (a name or a dotted attribute) in ``source``."""
    source = textwrap.dedent(source)
    facts = ModuleFacts(cst.parse_module(source), source)
    reads = [
        node for node in facts.preorder()
        if isinstance(node, (cst.Name, cst.Attribute)) and facts.code(node) == name
        and not isinstance(facts.parent(node), (cst.AssignTarget, cst.Attribute))
    ]
    return facts.fact(Values).literal_values(reads[-1])


@pytest.mark.parametrize(
    "code, expected",
    [
        ('"cuda"', "cuda"),
        ("'cu' 'da'", "cuda"),
        ('"""mps"""', "mps"),
        ('b"cuda"', None),
        ('f"cuda:{i}"', None),
        ('"a" f"{b}"', None),
        ("name", None),
    ],
)
def test_string_value(code, expected):
    assert string_value(cst.parse_expression(code)) == expected


@pytest.mark.parametrize(
    "source, name, expected",
    [
        ("device = 'cuda'\nprint(device)\n", "device", {"cuda"}),
        ("device = 'cuda' if ok else 'cpu'\nprint(device)\n", "device", {"cuda", "cpu"}),
        ("device = 'cuda' if ok else pick()\nprint(device)\n", "device", None),
        ("if ok:\n    device = 'mps'\nelse:\n    device = 'cpu'\nprint(device)\n", "device", {"mps", "cpu"}),
        ("device = 'cpu'\ndevice = 'cuda'\nprint(device)\n", "device", {"cuda"}),
        ("device = None\nif ok:\n    device = 'cuda'\nprint(device)\n", "device", {None, "cuda"}),
        ("device = env or 'cuda'\nprint(device)\n", "device", None),
        ("env = None\ndevice = env or 'cuda'\nprint(device)\n", "device", {"cuda"}),
        ("env = ''\ndevice = env and 'x'\nprint(device)\n", "device", {""}),
        ("def f(device='cpu'):\n    return device\n", "device", None),
        ("steps = -3\nprint(steps)\n", "steps", {-3}),
        ("lr = 1e-3\nflag = True\nprint(lr, flag)\n", "lr", {0.001}),
        ("flag = True\nprint(flag)\n", "flag", {True}),
        ("a, b = 'cuda', 'cpu'\nprint(b)\n", "b", {"cpu"}),
        ("a, b = pair\nprint(b)\n", "b", None),
        ("for device in ('cuda', 'cpu'):\n    print(device)\n", "device", None),
        ("device = device\nprint(device)\n", "device", None),
        ("DEVICE = 'cuda'\ndef f():\n    return DEVICE\nDEVICE = 'mps'\n", "DEVICE", {"cuda", "mps"}),
    ],
)
def test_literal_values_of_names(source, name, expected):
    found = values_of_last(source, name)
    assert found == (frozenset(expected) if expected is not None else None)


def test_self_attribute_values():
    source = """
    class T:
        def __init__(self, gpu):
            self.device = "cuda" if gpu else "cpu"
        def run(self):
            return self.device
    """
    assert values_of_last(source, "self.device") == {"cuda", "cpu"}


@pytest.mark.parametrize(
    "option, expected",
    [
        ("'--device', choices=['cuda', 'mps'], default='cuda'", {"cuda", "mps"}),
        ("'--device', choices=('cuda', 'cpu')", {"cuda", "cpu", None}),
        ("'-d', '--device', default='cuda'", None),
        ("'--use-gpu', dest='device', action='store_true'", {True, False}),
        ("'--other', choices=['x']", None),
    ],
)
def test_argparse_options_read_back(option, expected):
    source = f"""
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument({option})
    args = parser.parse_args()
    print(args.device)
    """
    found = values_of_last(source, "args.device")
    assert found == (frozenset(expected) if expected is not None else None)


def test_options_need_parsed_arguments():
    source = """
    parser.add_argument('--device', choices=['cuda'])
    args = load_config()
    print(args.device)
    """
    assert values_of_last(source, "args.device") is None
