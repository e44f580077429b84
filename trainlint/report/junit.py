"""JUnit XML, for CI systems that show test results: one test suite per file, one failed test
case per finding (the shape Ruff's ``junit`` format has), a single passing case when clean."""

from __future__ import annotations

import os
from itertools import groupby
from typing import Sequence
from xml.etree import ElementTree

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    root = ElementTree.Element("testsuites", name="trainlint", tests=str(max(len(diagnostics), 1)), failures=str(len(diagnostics)), errors="0")
    if not diagnostics:
        suite = ElementTree.SubElement(root, "testsuite", name="trainlint", tests="1", failures="0", errors="0")
        ElementTree.SubElement(suite, "testcase", name="No findings", classname="trainlint")
    for path, group in groupby(diagnostics, key=lambda d: d.path):
        found = list(group)
        absolute = os.path.abspath(os.path.join(context.cwd, path))
        suite = ElementTree.SubElement(root, "testsuite", name=absolute, tests=str(len(found)), failures=str(len(found)), errors="0")
        for d in found:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                name=f"org.trainlint.{d.code}",
                classname=os.path.splitext(absolute)[0],
                line=str(d.location.row),
                column=str(d.location.column),
            )
            failure = ElementTree.SubElement(case, "failure", message=d.message)
            where = f"line {d.location.row}, col {d.location.column}" if d.cell is None else d.position
            failure.text = f"{where}, {d.message}"
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
