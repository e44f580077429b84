"""Where git keeps the ignore patterns that are not in a ``.gitignore``: the repository's
``info/exclude`` and the user's ``core.excludesFile``.

Read from git's own files instead of asking ``git`` (a process per run, and git may not be
installed). The configuration is read as git reads it for this one key: the system file,
then the global ones, then the repository's; the last ``excludesFile`` under ``[core]`` wins.
An ``[include] path = FILE`` is read where it stands, as git reads it (dotfiles often keep
``core.excludesFile`` in an included file); ``[includeIf]`` sections, whose conditions need
git's own view of the repository, are not followed. Unset, it is
``$XDG_CONFIG_HOME/git/ignore`` (``~/.config/git/ignore``), as git documents.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import List, Optional

_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"[^\"]*\")?\s*\]")
_EXCLUDES_FILE = re.compile(r"^\s*excludesfile\s*=\s*(.*?)\s*$", re.IGNORECASE)
_INCLUDE_PATH = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.IGNORECASE)
_MAX_INCLUDE_DEPTH = 10  # git's own limit on nested includes


def git_dir(root: Path) -> Optional[Path]:
    """The git directory of a repository whose work tree is ``root`` (``.git``, or where a ``.git``
    file of a linked worktree or submodule points), or None when ``root`` is not one."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return (root / text[len("gitdir:") :].strip()).resolve()


def _common_dir(git_directory: Path) -> Path:
    """A linked worktree shares ``info/exclude`` and ``config`` with its main repository."""
    try:
        common = (git_directory / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_directory
    return (git_directory / common).resolve()


def exclude_files(root: Path) -> List[Path]:
    """The ignore files that apply to the whole repository at ``root``, lowest precedence first:
    the user's ``core.excludesFile``, then ``info/exclude``. Missing files are left out. Not memoised:
    a long-lived process (``--watch``) sees a changed configuration."""
    directory = git_dir(root)
    if directory is None:
        return []
    common = _common_dir(directory)
    candidates = [_user_excludes_file(common / "config", root), common / "info" / "exclude"]
    return [path for path in candidates if path.is_file()]


def _user_excludes_file(repository_config: Path, root: Path) -> Path:
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    configs: List[Path] = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        configs.append(Path(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        configs.append(Path(os.environ["GIT_CONFIG_GLOBAL"]))
    else:
        configs += [xdg / "git" / "config", home / ".gitconfig"]
    configs.append(repository_config)
    found = None
    for config in configs:
        found = _excludes_file_in(config) or found
    if found is None:
        return xdg / "git" / "ignore"
    path = Path(os.path.expanduser(found))
    return path if path.is_absolute() else root / path


def _excludes_file_in(config: Path, depth: int = 0) -> Optional[str]:
    """The last ``core.excludesFile`` set in one git configuration file and the files it includes."""
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    section, found = "", None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            continue
        if section == "core":
            setting = _EXCLUDES_FILE.match(line)
            found = _value(setting.group(1)) if setting else found
        elif section == "include" and depth < _MAX_INCLUDE_DEPTH:
            include = _INCLUDE_PATH.match(line)
            if include:  # relative to the including file's folder, as git resolves it
                included = config.parent / os.path.expanduser(_value(include.group(1)))
                found = _excludes_file_in(included, depth + 1) or found
    return found


def _value(text: str) -> str:
    """A configuration value without its trailing comment and quotes."""
    value = text.split(" #")[0].split(" ;")[0].strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value
