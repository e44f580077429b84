"""The command line as click reads it: the group, the option sets, value types and environment variables.

Only the console script (``trainlint.cli``) imports this module, so click stays off the
import path of the library (engine, runner, reports). Environment variables are
declared on the options that read them; click reads them only when the command that
has the option runs, so a bad variable is an error for that command alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Callable, List, NoReturn, Optional, Sequence

import click

from trainlint.report import FORMATS

COMMAND_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
SHELLS = ("bash", "zsh", "fish")


class UserError(click.ClickException):
    """A problem the user can fix (bad config, bad selector, bad report file); exit code 2."""

    exit_code = 2

    def show(self, file: Optional[IO[str]] = None) -> None:
        click.echo(f"trainlint: error: {self.message}", err=True)


class Group(click.Group):
    """trainlint's command group: a command's return value is its exit code, and commands are
    listed in the order they were added (click sorts them), so ``check`` comes first."""

    def invoke(self, ctx: click.Context) -> NoReturn:
        # click exits 0 after a command in standalone mode, whatever it returned (CliRunner runs that way)
        ctx.exit(super().invoke(ctx))

    def list_commands(self, ctx: click.Context) -> List[str]:
        return list(self.commands)


def run_options(command: Callable) -> Callable:
    """The options ``check`` and ``fix`` share."""
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=str, allow_dash=True)),
        click.option("--select", multiple=True, metavar="CODES", help="Rules to enable (codes, prefixes like TL2, names, ALL); replaces the configured selection."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rules to disable."),
        click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to enable on top of the selection."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Include fixes that may change behaviour."),
        click.option("--output-format", type=click.Choice(FORMATS), envvar="TRAINLINT_OUTPUT_FORMAT", show_envvar=True, default="text", show_default=True, help="Report format."),
        click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True, path_type=str), help="Write the report to this file."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding."),
        click.option("-q", "--quiet", is_flag=True, help="Print findings and errors only: no summary, no warnings."),
        click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Use this configuration file for every path."),
        click.option("--exclude", multiple=True, metavar="GLOBS", help="Replace the exclude patterns."),
        click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Add exclude patterns."),
        click.option("--force-exclude", is_flag=True, help="Apply exclusions to paths named on the command line too (for pre-commit)."),
        click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files matched by .gitignore (default: on)."),
        click.option("--stdin-filename", metavar="PATH", help="The path of the code read from stdin (for config and messages)."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes (default: CPU count)."),
        click.option("-n", "--no-cache", is_flag=True, envvar="TRAINLINT_NO_CACHE", show_envvar=True, help="Neither read nor write the cache."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="TRAINLINT_CACHE_DIR", show_envvar=True, metavar="DIRECTORY", help="Where to keep the cache."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def check_paths(paths: Sequence[str]) -> None:
    """`-` is stdin only as the sole path: beside others it would be looked up as a file named `-`."""
    if len(paths) > 1 and "-" in paths:
        raise click.UsageError(
            "`-` (read the code from stdin) cannot be combined with other paths (a file of that name is `./-`)",
            click.get_current_context(silent=True),
        )
