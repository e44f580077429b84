"""What ``--show-files`` and ``--show-settings`` print: the first thing to run when a configuration
"does not work" is which files a run would check, and which settings apply to them.

In a nested project a folder's files may fall under several configuration files (``sub/`` with
its own ``trainlint.yaml``); ``--show-settings`` shows one block for each configuration a
PATH's files use, named after the first such file, so that no file's settings go unshown.

The settings are printed as TOML (``key = value``, dotted keys for rule options), so the
output can be pasted into a ``[tool.trainlint]`` table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from trainlint.discovery import display_path
from trainlint.settings import Settings
from trainlint.target_torch import ASSUMED_TORCH

_TARGET_TORCH = "target-torch"


def files_listing(files: Sequence[Path]) -> str:
    """One path a line, as the reports show paths, sorted."""
    return "".join(f"{shown}\n" for shown in sorted(display_path(path) for path in files))


def settings_targets(found: Sequence[Tuple[Path, Sequence[Path]]], settings_of: Callable[[Path], Settings]) -> List[Path]:
    """The paths whose settings to show: for each PATH given (with the files found under it), the first file
    under each configuration that applies there, or the PATH itself when nothing was found. Each once."""
    targets: Dict[Path, None] = {}
    for given, files in found:
        first_by_configuration: Dict[Tuple[Optional[Path], Path], Path] = {}
        for file in files:
            settings = settings_of(file)
            first_by_configuration.setdefault((settings.config_path, settings.root), file)
        for target in first_by_configuration.values() or [given]:
            targets.setdefault(target, None)
    return list(targets)


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
        f"per-file-ignores = {_inline_table((pattern, sorted(codes)) for pattern, codes in settings.per_file_ignores)}",
        f"rules-for-this-file = {_toml(sorted(effective))}  # select minus the per-file-ignores that match",
        f"exclude = {_toml(list(settings.exclude))}",
        f"include = {_toml(list(settings.include))}",
        _target_torch_line(settings),
        f"unsafe-fixes = {_toml(settings.unsafe_fixes)}",
        f"respect-gitignore = {_toml(settings.respect_gitignore)}",
    ]
    for code in sorted(settings.codes):
        configured = settings.options.get(code, {})
        for name, option in load_rule(code).options.items():
            value = configured.get(name, option.default)
            if name == _TARGET_TORCH and value == "":
                value = _ASSUMED
            lines.append(f"options.{code}.{name} = {_toml(value)}")
    return "\n".join(lines) + "\n"


_ASSUMED = f"{ASSUMED_TORCH[0]}.{ASSUMED_TORCH[1]}"


def _target_torch_line(settings: Settings) -> str:
    """The torch the fixes may rely on. A ``target-torch`` (set, or read from the project's dependency on
    torch) reaches every rule's options; a rule's own ``options.CODE.target-torch`` is shown on its line."""
    from collections import Counter

    from trainlint.registry import ALL_CODES

    targets = Counter(settings.options.get(code, {}).get(_TARGET_TORCH) or None for code in ALL_CODES)
    if targets[None]:  # some rule has none: nothing sets one for every rule
        return f"{_TARGET_TORCH} = {_toml(_ASSUMED)}  # assumed: neither the configuration nor the project's dependencies name a torch version"
    return f"{_TARGET_TORCH} = {_toml(targets.most_common(1)[0][0])}  # from the configuration or the project's dependency on torch"


def _inline_table(items: Iterable[Tuple[str, object]]) -> str:
    entries = ", ".join(f"{json.dumps(key)} = {_toml(value)}" for key, value in items)
    return f"{{ {entries} }}" if entries else "{}"


def _toml(value: object) -> str:
    """A value as TOML writes it: JSON's spelling is TOML's for strings, numbers, booleans and lists."""
    return json.dumps(value)
