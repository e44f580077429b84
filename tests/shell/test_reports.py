"""Output formats: text paths, full, json (Ruff's shape), github, sarif (2.1.0 shape); no summary in machine formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import pytest

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, CLEAN, EVAL, PRINT, invoke, write

pytestmark = pytest.mark.usefixtures("project")

MULTILINE_PRINT = 'print("hi",\n      1)\n'


def three_files(root: Path) -> None:
    write(root, {"a.py": AUTOCAST, "e.py": EVAL, "p.py": MULTILINE_PRINT})


def apply_edits(text: str, edits: List[dict]) -> str:
    """Apply JSON edits (1-based rows and columns, end exclusive) the way an editor would."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(location: dict) -> int:
        return offsets[location["row"] - 1] + location["column"] - 1

    for edit in sorted(edits, key=lambda e: (e["location"]["row"], e["location"]["column"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text


def test_text_paths_are_relative_to_the_working_directory(project: Path) -> None:
    write(project, {"src/a.py": AUTOCAST})
    result = invoke("check", "-q", str(project / "src"))
    assert result.stdout == "src/a.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated\n"


def test_findings_are_sorted_by_path_row_column(project: Path) -> None:
    write(project, {"b.py": EVAL + EVAL, "a/z.py": EVAL, "a.py": "x = 1; " + EVAL})
    rows = [line.split(": ")[0] for line in invoke("check", "-q").stdout.splitlines()]
    assert rows == ["a.py:1:8", "a/z.py:1:1", "b.py:1:1", "b.py:2:1"]


def test_json_is_shaped_like_ruffs(project: Path) -> None:
    three_files(project)
    result = invoke("check", "--output-format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)  # the whole output parses: no summary lines
    assert [(f["code"], Path(f["filename"]).name) for f in findings] == [("TL701", "a.py"), ("TL702", "e.py"), ("TL801", "p.py")]
    autocast, eval_call, print_call = findings
    assert set(autocast) == {"code", "name", "message", "filename", "location", "end_location", "fix", "noqa_row", "url", "cell"}
    assert autocast["filename"] == str(project / "a.py")
    assert (autocast["location"], autocast["end_location"]) == ({"row": 3, "column": 6}, {"row": 3, "column": 31})
    assert autocast["name"] == "demo-cuda-autocast" and autocast["message"] == "`torch.cuda.amp.autocast` is deprecated"
    assert autocast["url"]
    assert autocast["fix"]["applicability"] == "safe" and autocast["fix"]["message"] == 'Use `torch.autocast("cuda", ...)`'
    assert apply_edits(AUTOCAST, autocast["fix"]["edits"]) == AUTOCAST_FIXED
    assert eval_call["fix"] is None
    assert print_call["fix"]["applicability"] == "unsafe"  # JSON shows every fix, as Ruff's does
    assert (print_call["location"], print_call["end_location"]) == ({"row": 1, "column": 1}, {"row": 2, "column": 9})


def test_json_of_a_clean_run_is_an_empty_list(project: Path) -> None:
    write(project, {"ok.py": CLEAN})
    result = invoke("check", "--output-format", "json")
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])


def test_github_annotations(project: Path) -> None:
    three_files(project)
    assert invoke("check", "--output-format", "github").stdout.splitlines() == [
        "::error title=trainlint (TL701),file=a.py,line=3,col=6,endLine=3,endColumn=31"
        "::a.py:3:6: TL701 `torch.cuda.amp.autocast` is deprecated",
        "::error title=trainlint (TL702),file=e.py,line=1,col=1,endLine=1,endColumn=10::e.py:1:1: TL702 Use of `eval`",
        "::error title=trainlint (TL801),file=p.py,line=1,endLine=2::p.py:1:1: TL801 `print` found",  # no columns across lines
    ]


def test_github_escapes_newlines_and_property_separators() -> None:
    from trainlint.diagnostics import Diagnostic, Location
    from trainlint.report import ReportContext, render

    diagnostic = Diagnostic("a,b:c.py", "TL701", "demo", "50% done\nnext", Location(1, 1), Location(1, 2))
    context = ReportContext(unsafe_fixes=False, color=False, cwd="/", sources=lambda path: "")
    assert render("github", [diagnostic], context) == (
        "::error title=trainlint (TL701),file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2"
        "::a,b:c.py:1:1: TL701 50%25 done%0Anext\n"
    )


def test_sarif_2_1_0_structure(project: Path) -> None:
    three_files(project)
    write(project, {"broken.py": "print(1\n"})
    document = json.loads(invoke("check", "--output-format", "sarif").stdout)
    assert document["version"] == "2.1.0"
    assert document["$schema"].endswith("sarif-2.1.0.json")
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "trainlint" and driver["version"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert {"TL001", "TL701", "TL702", "TL801"} <= set(rule_ids) and len(rule_ids) == len(set(rule_ids))
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["TL701", "TL001", "TL702", "TL801"]
    for result in results:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in {"none", "note", "warning", "error"}
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"].startswith("file:///")
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"] == (project / "a.py").as_uri()
    assert (first["region"]["startLine"], first["region"]["startColumn"]) == (3, 6)


def test_full_format_shows_source_caret_help_and_fix_diff(project: Path) -> None:
    three_files(project)
    out = invoke("check", "--output-format", "full").stdout
    assert (
        "a.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated\n"
        "   3 | with torch.cuda.amp.autocast():\n"
        "            ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        'help: Use `torch.autocast("cuda", ...)`\n'
    ) in out
    assert '    -with torch.cuda.amp.autocast():\n    +with torch.autocast("cuda"):\n' in out
    assert "help: Use `logging.info`\nnote: This is an unsafe fix and may change runtime behavior\n" in out
    assert out.endswith("Found 3 findings (1 fixable with `trainlint fix --write`).\n1 unsafe fix available with `--unsafe-fixes`.\n")


@pytest.mark.parametrize("output_format", ["json", "github", "sarif"])
@pytest.mark.parametrize("files", [{"a.py": AUTOCAST, "p.py": PRINT}, {"ok.py": CLEAN}], ids=["findings", "clean"])
def test_machine_formats_carry_no_summary(project: Path, output_format: str, files) -> None:
    write(project, files)
    result = invoke("check", "--output-format", output_format)
    for summary in ("Found", "All checks passed", "unsafe fix", "fixable"):
        assert summary not in result.stdout
    assert result.stderr == ""
