"""The output formats CI systems read (concise, json-lines, junit, gitlab, pylint), each parsed
as its consumer parses it: JUnit XML by ElementTree, GitLab's Code Quality fields, JSON per line."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.shell.support import AUTOCAST, CLEAN, EVAL, invoke, write

pytestmark = pytest.mark.usefixtures("project")


def two_files(root: Path) -> None:
    write(root, {"a.py": AUTOCAST, "sub/e.py": EVAL + EVAL})


def test_concise_is_the_default_and_text_its_alias(project: Path) -> None:
    two_files(project)
    default = invoke("check").stdout
    assert default.startswith("a.py:3:6: TL701 [*] ") and default.endswith("Found 3 findings (1 fixable with `trainlint fix --write`).\n")
    assert invoke("check", "--output-format", "concise").stdout == default == invoke("check", "--output-format", "text").stdout
    assert "default: concise]" in " ".join(invoke("check", "--help").stdout.split())


def test_json_lines_is_one_json_object_a_line(project: Path) -> None:
    two_files(project)
    lines = invoke("check", "--output-format", "json-lines").stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["code"], r["location"]["row"]) for r in records] == [("TL701", 3), ("TL702", 1), ("TL702", 2)]
    assert records == json.loads(invoke("check", "--output-format", "json").stdout)
    assert invoke("check", "--output-format", "json-lines", "sub").stdout.count("\n") == 2


def test_junit_parses_as_junit_xml(project: Path) -> None:
    two_files(project)
    result = invoke("check", "--output-format", "junit")
    assert result.exit_code == 1
    root = ElementTree.fromstring(result.stdout.encode())
    assert root.tag == "testsuites" and (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "3", "0")
    suites = root.findall("testsuite")
    assert [Path(s.get("name")) for s in suites] == [project / "a.py", project / "sub" / "e.py"]
    for suite in suites:
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == int(suite.get("failures")) == len(cases)
        for case in cases:
            failure = case.find("failure")
            assert failure is not None and failure.get("message") and case.get("line") and case.get("column")
    eval_case = suites[1].findall("testcase")[1]
    assert (eval_case.get("name"), eval_case.get("line"), eval_case.find("failure").get("message")) == ("org.trainlint.TL702", "2", "Use of `eval`")


def test_junit_as_a_junit_consumer_reads_it(project: Path, tmp_path: Path) -> None:
    """junitparser reads reports as CI servers do (Jenkins, GitLab): suites, cases, failures and their counts."""
    from junitparser import Failure, JUnitXml

    two_files(project)
    report = tmp_path / "report.xml"
    assert invoke("check", "--output-format", "junit", "-o", str(report)).exit_code == 1
    xml = JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert [(Path(suite.name).name, suite.tests, suite.failures, suite.errors) for suite in suites] == [("a.py", 1, 1, 0), ("e.py", 2, 2, 0)]
    cases = [case for suite in suites for case in suite]
    assert all(len(case.result) == 1 and isinstance(case.result[0], Failure) and case.result[0].message for case in cases)
    assert [case.name for case in cases] == ["org.trainlint.TL701", "org.trainlint.TL702", "org.trainlint.TL702"]


def test_junit_escapes_what_xml_needs(project: Path) -> None:
    write(project, {"a&b<c>.py": EVAL})
    root = ElementTree.fromstring(invoke("check", "--output-format", "junit").stdout.encode())
    assert Path(root.find("testsuite").get("name")).name == "a&b<c>.py"


def test_junit_of_a_clean_run_is_one_passing_case(project: Path) -> None:
    write(project, {"ok.py": CLEAN})
    result = invoke("check", "--output-format", "junit")
    root = ElementTree.fromstring(result.stdout.encode())
    assert result.exit_code == 0 and (root.get("tests"), root.get("failures")) == ("1", "0")
    assert root.find("testsuite/testcase").find("failure") is None


def test_gitlab_code_quality_fields(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    two_files(project)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    issues = json.loads(invoke("check", "--output-format", "gitlab").stdout)
    assert len(issues) == 3
    for issue in issues:
        assert isinstance(issue["description"], str) and issue["description"]
        assert issue["check_name"].startswith("TL")
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert [(i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [("a.py", 3), ("sub/e.py", 1), ("sub/e.py", 2)]
    assert len({i["fingerprint"] for i in issues}) == 3  # unique, though two findings are alike
    assert issues[1]["description"] == "TL702: Use of `eval`"


def test_gitlab_paths_are_relative_to_the_project_and_fingerprints_survive_moved_lines(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"sub/e.py": EVAL})
    monkeypatch.setenv("CI_PROJECT_DIR", str(project))
    monkeypatch.chdir(project / "sub")
    before = json.loads(invoke("check", "--output-format", "gitlab", "--no-cache").stdout)
    assert before[0]["location"]["path"] == "sub/e.py"
    (project / "sub/e.py").write_text("x = 1\n" + EVAL)
    after = json.loads(invoke("check", "--output-format", "gitlab", "--no-cache").stdout)
    assert after[0]["location"]["lines"]["begin"] == 2 and after[0]["fingerprint"] == before[0]["fingerprint"]


def test_pylint_lines(project: Path) -> None:
    two_files(project)
    result = invoke("check", "--output-format", "pylint")
    assert result.stdout.splitlines() == [
        "a.py:3: [TL701] `torch.cuda.amp.autocast` is deprecated",
        "sub/e.py:1: [TL702] Use of `eval`",
        "sub/e.py:2: [TL702] Use of `eval`",
    ]
