"""The click command line as click's own test runner and a real shell see it: help, version,
did-you-mean, environment variables and shell completion."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.shell.support import EVAL, console_script, demo_env, write
from trainlint import __version__
from trainlint.cli import cli

pytestmark = pytest.mark.usefixtures("project")


def run(*args: str, env=None):
    return CliRunner().invoke(cli, list(args), prog_name="trainlint", env=env)


def test_version_and_bare_group() -> None:
    assert (run("-V").exit_code, run("-V").output) == (0, f"trainlint {__version__}\n")
    bare = run()
    assert bare.exit_code == 0 and "Commands:" in bare.output


def test_commands_exit_with_their_code_in_clicks_standalone_mode(project: Path) -> None:
    write(project, {"e.py": EVAL})
    assert run("check", "--no-cache").exit_code == 1
    assert run("check", "--no-cache", "--exit-zero").exit_code == 0
    unknown = run("rule", "TL999")
    assert (unknown.exit_code, unknown.output) == (2, "trainlint: error: Unknown rule `TL999` (see `trainlint rules`)\n")


def test_environment_variables_are_read_by_the_options(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = run("check", env={"TRAINLINT_OUTPUT_FORMAT": "json", "TRAINLINT_NO_CACHE": "1"})
    assert result.output.startswith("[") and not (project / ".trainlint_cache").exists()


def test_a_typo_in_an_option_shows_the_subcommands_usage() -> None:
    result = run("fix", "--unsafe-fixs")
    assert result.exit_code == 2
    assert result.output.startswith("Usage: trainlint fix [OPTIONS] [PATHS]...")
    assert "Error: No such option '--unsafe-fixs'. Did you mean '--unsafe-fixes'?\n" in result.output  # the closest, not every near one
    assert "Did you mean '--select'?\n" in run("check", "--selct", "TL7").output  # not '--extend-select', '--help', '--select'


def test_a_typo_in_a_choice_gets_a_did_you_mean() -> None:
    result = run("check", "--output-format", "sarf")
    assert result.exit_code == 2 and result.output.rstrip().endswith("'sarf' is not one of 'concise', 'full', 'json', 'json-lines', 'junit', 'gitlab', 'pylint', 'github', 'sarif', 'text'. Did you mean 'sarif'?")
    assert run("rule", "--output-format", "xml", "TL701").output.rstrip().endswith("'xml' is not one of 'text', 'json'.")  # nothing close


def test_only_the_invoked_command_is_built(project: Path) -> None:
    """A one-file check pays for building `check` alone (issue 18's start-up budget); help lists them all."""
    program = (
        "import sys\n"
        "from trainlint.cli import cli, main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print('BUILT ' + ' '.join(cli.commands))\n"
    )

    def built(*args: str) -> str:
        process = subprocess.run([sys.executable, "-c", program, *args], cwd=project, capture_output=True, text=True, env=demo_env(), timeout=60)
        return process.stdout.splitlines()[-1]

    write(project, {"e.py": EVAL})
    assert built("check", "--no-cache", "e.py") == "BUILT check"
    assert built("rules") == "BUILT rules"
    assert built("--help") == "BUILT check fix rule rules clean server completion"


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F"), ("zsh", "#compdef trainlint"), ("fish", "complete --no-files --command trainlint")])
def test_completion_prints_clicks_script(shell: str, marker: str) -> None:
    result = run("completion", shell)
    assert result.exit_code == 0 and marker in result.output and "_TRAINLINT_COMPLETE" in result.output


def _complete(words: str, project: Path) -> list:
    """What the bash completion script asks the console script for, as bash would."""
    env = {**demo_env(), "_TRAINLINT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    process = subprocess.run([console_script()], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    return process.stdout.splitlines()


def test_completion_answers_for_commands_and_options(project: Path) -> None:
    assert _complete("trainlint ch", project) == ["plain,check"]
    assert "plain,--select" in _complete("trainlint check --sel", project)
    assert _complete("trainlint completion ", project) == ["plain,bash", "plain,zsh", "plain,fish"]


def test_completion_of_rule_codes_names_and_selector_lists(project: Path) -> None:
    assert _complete("trainlint rule TL7", project) == ["plain,TL701", "plain,TL702"]
    assert _complete("trainlint rule demo-e", project) == ["plain,demo-eval"]
    assert _complete("trainlint check --select TL8", project) == ["plain,TL801"]
    assert _complete("trainlint check --ignore TL701,demo-p", project) == ["plain,TL701,demo-print"]
    assert _complete("trainlint check --unfixable a", project) == ["plain,ALL"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(
    "words, expected",
    [("trainlint ch", "check"), ("trainlint check --output-format j", "json json-lines junit"), ("trainlint rule TL7", "TL701 TL702")],
)
def test_completion_in_bash(project: Path, words: str, expected: str) -> None:
    """Source the printed script in bash and call its completion function as bash does on <TAB>."""
    script = subprocess.run([console_script(), "completion", "bash"], capture_output=True, text=True, env=demo_env(), timeout=60).stdout
    program = f'{script}\nCOMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; _trainlint_completion trainlint; echo "${{COMPREPLY[@]}}"\n'
    env = {**demo_env(), "PATH": os.pathsep.join([str(Path(console_script()).parent), os.environ.get("PATH", "")])}
    process = subprocess.run(["bash", "-c", program], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert process.stdout.split() == expected.split(), process.stderr


@pytest.mark.parametrize("args", [["rules"], ["rule", "TL101"], ["rule", "--all"]])
def test_rule_documentation_commands_import_no_parser(args: list) -> None:
    """They print the shipped pages (what the rule docstrings say) without importing the rules, LibCST or the analyses."""
    program = (
        "import contextlib, io, sys\n"
        "from trainlint.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        f"    main({args!r})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' or m.startswith('trainlint.analysis'))[:3])\n"
        "from trainlint.docs import all_codes, rule_markdown, rules_table\n"
        f"codes = all_codes() if {args!r} == ['rule', '--all'] else {args[1:]!r}\n"
        f"expected = rules_table() if {args!r} == ['rules'] else '\\n'.join(rule_markdown(c) for c in codes)\n"
        "print(out.getvalue() == expected + '\\n')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the shipped rules, not the demo ones
    process = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert process.stdout.splitlines()[-2:] == ["[]", "True"], process.stderr
