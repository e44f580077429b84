"""The command line as argparse reads it: commands, options and their checks.

argparse, not click: a pre-commit hook starts trainlint once per commit, and
importing click took ~13 ms of a ~280 ms single-file check; argparse takes
~2 ms, and ~3 more to build the parser and parse. Nothing here reads the
environment at parse time: ``resolve_environment`` is called by the commands that
use a variable, so that a bad variable is an error only for them, as with click.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence, TypeVar

from trainlint import __version__
from trainlint.report import FORMATS

_T = TypeVar("_T")


class UserError(Exception):
    """A problem the user can fix (bad config, bad selector, bad variable); exit code 2."""


# --- argument types: each turns a command-line (or environment) string into a value or says why not ---


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {jobs}")
    return jobs


def _config_file(text: str) -> Path:
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"file '{text}' does not exist")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a directory")
    return path


def _cache_dir(text: str) -> Path:
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a file")
    return path


def _output_format(text: str) -> str:
    if text not in FORMATS:
        raise argparse.ArgumentTypeError(f"invalid choice '{text}' (choose from {', '.join(FORMATS)})")
    return text


def _boolean(text: str) -> bool:
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean (1, true, yes, on or 0, false, no, off)")


def _from_environment(given: Optional[_T], variable: str, convert: Callable[[str], _T], fallback: _T) -> _T:
    """An option not given on the command line takes its environment variable; unset or empty, the fallback."""
    if given is not None:
        return given
    text = os.environ.get(variable)
    if not text:
        return fallback
    try:
        return convert(text)
    except argparse.ArgumentTypeError as error:
        raise UserError(f"invalid value in the environment variable {variable}: {error}") from None


# --- the parser ---------------------------------------------------------------------------------


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's, told the terminal's width: left to find it, it imports shutil (and with it
    bz2, lzma and zlib: ~3 ms) at every add_argument, for a width that only --help uses."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_terminal_width() - 2)


def _terminal_width() -> int:
    """What shutil.get_terminal_size() finds: $COLUMNS, else the terminal's width, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser() -> argparse.ArgumentParser:
    """The command line as argparse sees it. It reads nothing from the environment
    (``resolve_environment`` does), so that a bad variable is an error only for the commands that use it."""
    parser = argparse.ArgumentParser(
        prog="trainlint",
        description="trainlint: find and fix the defects that make training runs fail late.",
        allow_abbrev=False,
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"trainlint, version {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND", required=True)

    check = _add_command(commands, "check", "Report findings in PATHS (default: the current directory).")
    _add_run_options(check)
    check.add_argument("--fix", action="store_true", help="Apply fixes in place (same as `trainlint fix --write`).")
    check.add_argument("--diff", action="store_true", help="Print the fixes as a diff and write nothing; exit 1 if there is one.")
    check.add_argument("--exit-non-zero-on-fix", action="store_true", help="With --fix, exit 1 when a file was changed.")

    fix = _add_command(commands, "fix", "Fix PATHS: print a diff, or apply it with --write.")
    _add_run_options(fix)
    fix.add_argument("--write", action="store_true", help="Apply the fixes in place (default: print a diff).")
    fix.add_argument("--diff", action="store_true", help="Print the fixes as a diff (the default).")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true", help="With --write, exit 1 when a file was changed.")

    rule = _add_command(commands, "rule", "Show a rule's documentation.")
    rule.add_argument("code_or_name", metavar="CODE_OR_NAME")

    _add_command(commands, "rules", "List every rule: code, name, fix availability, summary.")
    _add_command(commands, "server", 'Run the language server on stdin/stdout (needs `pip install "trainlint[server]"`).')
    return parser


def _add_command(commands, name: str, summary: str) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=summary, description=summary, allow_abbrev=False, formatter_class=_HelpFormatter)


def _add_run_options(command: argparse.ArgumentParser) -> None:
    """The options of ``check`` and ``fix``. Those with an environment variable default to None
    here and are resolved by ``resolve_environment``, so that a bad variable is an error only when it is used."""
    command.usage = "%(prog)s [options] [PATHS ...]"  # not every option before every usage error
    add = command.add_argument
    add("paths", nargs="*", metavar="PATHS", help="Files and folders; `-` reads the code from stdin.")
    add("--select", action="append", metavar="CODES", help="Rules to enable (codes, prefixes like TL2, names, ALL); replaces the configured selection.")
    add("--ignore", action="append", metavar="CODES", help="Rules to disable.")
    add("--extend-select", action="append", metavar="CODES", help="Rules to enable on top of the selection.")
    add("--unsafe-fixes", action=argparse.BooleanOptionalAction, help="Include fixes that may change behaviour.")
    add("--output-format", choices=FORMATS, help="Report format (default: $TRAINLINT_OUTPUT_FORMAT, else text).")
    add("-o", "--output-file", metavar="FILE", help="Write the report to this file.")
    add("--exit-zero", action="store_true", help="Exit 0 even when findings remain.")
    add("--statistics", action="store_true", help="Show counts per rule instead of each finding.")
    add("-q", "--quiet", action="store_true", help="Print findings and errors only: no summary, no warnings.")
    add("--config", dest="config_file", type=_config_file, metavar="FILE", help="Use this configuration file for every path.")
    add("--exclude", action="append", metavar="GLOBS", help="Replace the exclude patterns.")
    add("--extend-exclude", action="append", metavar="GLOBS", help="Add exclude patterns.")
    add("--force-exclude", action="store_true", help="Apply exclusions to paths named on the command line too (for pre-commit).")
    add("--respect-gitignore", action=argparse.BooleanOptionalAction, help="Skip files matched by .gitignore (default: on).")
    add("--stdin-filename", metavar="PATH", help="The path of the code read from stdin (for config and messages).")
    add("-j", "--jobs", type=_jobs, metavar="N", help="Worker processes (default: CPU count).")
    add("--no-cache", action="store_true", default=None, help="Neither read nor write the cache (default: $TRAINLINT_NO_CACHE).")
    add("--cache-dir", type=_cache_dir, metavar="DIRECTORY", help="Where to keep the cache (default: $TRAINLINT_CACHE_DIR).")


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """Parse, taking PATHS between options too (`trainlint check a.py --fix b.py`), as click did:
    an argparse subcommand fills a positional from one run of words and leaves later ones over."""
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        _take_extra_paths(parser, args, extras)
    if len(getattr(args, "paths", ())) > 1 and "-" in args.paths:
        # Else `-` would be looked up as a file named `-` (a file of that name is `./-`).
        parser.error("`-` (read the code from stdin) cannot be combined with other paths")
    return args


def _take_extra_paths(parser: argparse.ArgumentParser, args: argparse.Namespace, extras: Sequence[str]) -> None:
    """Add to PATHS the words argparse left over; an option it did not know is a usage error."""
    cut = extras.index("--") if "--" in extras else len(extras)  # after `--`, `-x.py` is a path
    if not hasattr(args, "paths") or any(word.startswith("-") and word != "-" for word in extras[:cut]):
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    args.paths = [*args.paths, *extras[:cut], *extras[cut + 1 :]]


def resolve_environment(args: argparse.Namespace) -> None:
    """Give the options of ``check`` and ``fix`` that the command line left out their variable's value."""
    args.output_format = _from_environment(args.output_format, "TRAINLINT_OUTPUT_FORMAT", _output_format, "text")
    args.no_cache = _from_environment(args.no_cache, "TRAINLINT_NO_CACHE", _boolean, False)
    args.cache_dir = _from_environment(args.cache_dir, "TRAINLINT_CACHE_DIR", _cache_dir, None)
