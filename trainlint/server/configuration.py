"""The settings of each open document, read exactly as the CLI reads them for a file.

The nearest ``[tool.trainlint]`` / ``trainlint.yaml`` / ``.trainlint.yaml`` above
the document applies (``SettingsResolver``, as ``trainlint check`` uses it); the
editor's initialization options play the part of the command line for
``select``, ``ignore`` and ``extendSelect``. A document that ``--force-exclude``
would skip (a file under ``.venv`` reached by go-to-definition, an excluded or
git-ignored path) is not linted. Everything read is cached until ``reload``,
which the server calls when a configuration file changes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple

from trainlint.config import CONFIG_FILENAMES
from trainlint.engine import RuleSettings
from trainlint.registry import split_selectors
from trainlint.settings import Overrides, SettingsResolver

# initializationOptions key -> the Overrides field it sets (the command line's --select, --ignore, --extend-select)
OPTION_FIELDS = {"select": "select", "ignore": "ignore", "extendSelect": "extend_select"}


class DocumentSettings(NamedTuple):
    rules: RuleSettings
    unsafe_fixes: bool


def overrides_from_options(options: Any) -> Tuple[Overrides, List[str]]:
    """The overrides that initialization options ask for, and what is wrong with them (each ignored)."""
    problems: List[str] = []
    if options is None:
        return Overrides(), problems
    if not isinstance(options, Mapping):
        return Overrides(), ["initializationOptions must be an object; they were ignored"]
    values: Dict[str, Tuple[str, ...]] = {}
    for key, value in options.items():
        field = OPTION_FIELDS.get(key)
        if field is None:
            problems.append(f"unknown initialization option `{key}` (valid: {', '.join(OPTION_FIELDS)}); it was ignored")
        elif not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            problems.append(f"initialization option `{key}` must be a list of rule selectors; it was ignored")
        else:
            values[field] = tuple(split_selectors(value))
    return Overrides(**values), problems


def is_config_file(path: Path) -> bool:
    return path.name in CONFIG_FILENAMES


class WorkspaceConfiguration:
    """Settings per document path; ``for_document`` raises ``ConfigError`` for a broken configuration."""

    def __init__(self, root: Path, overrides: Overrides) -> None:
        self.root = root
        self.overrides = overrides
        self.reload()

    def reload(self) -> None:
        """Forget every configuration read so far (a configuration file changed)."""
        self._resolver = SettingsResolver(self.overrides, self.root)
        self._excluded: Dict[Path, bool] = {}

    def for_document(self, path: Optional[Path], name: str) -> Optional[DocumentSettings]:
        """The settings for a document at ``path`` (None: not a file, such as an unsaved buffer, which takes
        the workspace root's settings as stdin takes the working directory's), or None if it is excluded."""
        from trainlint.discovery import is_force_excluded

        target = path if path is not None else self.root / name
        settings = self._resolver.for_path(target)
        if path is not None:
            excluded = self._excluded.get(path)
            if excluded is None:
                excluded = self._excluded[path] = is_force_excluded(path, settings)
            if excluded:
                return None
        # Fixes are rendered as text only when a code action asks for one: rendering each costs more than the lint.
        rules = replace(settings.rule_settings_for(target), describe_fixes=False)
        return DocumentSettings(rules, settings.unsafe_fixes)
