"""What ``--show-files`` and ``--show-settings`` print: the first thing to run when a configuration
"does not work" is which files a run would check, and which settings apply to one of them.

The settings are printed as TOML (``key = value``, dotted keys for rule options), so the
output can be pasted into a ``[tool.trainlint]`` table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Sequence

from trainlint.discovery import display_path
from trainlint.settings import Settings


def files_listing(files: Sequence[Path]) -> str:
    """One path a line, as the reports show paths, sorted."""
    return "".join(f"{shown}\n" for shown in sorted(display_path(path) for path in files))


def settings_listing(path: Path, settings: Settings) -> str:
    """The effective settings for ``path``: where they come from, then each key."""
    from trainlint.registry import load_rule

    source = display_path(settings.config_path) if settings.config_path else "none (the defaults and the command line)"
    effective = settings.rule_settings_for(path).codes
    lines: List[str] = [
        f"Resolved settings for: {display_path(path)}",
        f"Settings path: {source}",
        "",
        f"root = {json.dumps(display_path(settings.root))}",
        f"select = {_toml(sorted(settings.codes))}",
        f"per-file-ignores = {{ {', '.join(f'{json.dumps(p)} = {_toml(sorted(c))}' for p, c in settings.per_file_ignores)} }}",
        f"rules-for-this-file = {_toml(sorted(effective))}  # select minus the per-file-ignores that match",
        f"exclude = {_toml(list(settings.exclude))}",
        f"unsafe-fixes = {_toml(settings.unsafe_fixes)}",
        f"respect-gitignore = {_toml(settings.respect_gitignore)}",
    ]
    for code in sorted(settings.codes):
        configured = settings.options.get(code, {})
        for name, option in load_rule(code).options.items():
            lines.append(f"options.{code}.{name} = {_toml(configured.get(name, option.default))}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """A value as TOML writes it: JSON's spelling is TOML's for strings, numbers, booleans and lists."""
    return json.dumps(value)
