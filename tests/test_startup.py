"""What a one-file check imports: start-up is most of what a pre-commit hook waits for.

LibCST's import alone is ~190 ms of the 250 ms that issue 7 allows for checking
one training script, so trainlint keeps everything else off that path: a file
without triggers must not import LibCST at all, and a check must not import what
only fixes, other report formats or error messages need. Each case runs a fresh
interpreter, the way pre-commit starts trainlint.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import FrozenSet

import pytest

REPO = Path(__file__).resolve().parents[1]
TRAINING_SCRIPT = REPO / "fixtures" / "TL201_cuda_amp_on_other_device" / "bad_seed_training_loop.py"

# Modules a check of one file has no use for; each costs milliseconds to import.
NEVER_ON_A_CHECK = (
    "tempfile",  # only writing a fixed file or a cache table needs it
    "difflib",  # only a did-you-mean or a fix description needs it
    "trainlint.fixes",
    "trainlint.report.json_format",
    "trainlint.report.sarif",
    "trainlint.report.github",
    "trainlint.server",  # the language server and its libraries come only with `trainlint server`
    "pygls",
    "lsprotocol",
)


def imported_by_check(path: Path, *options: str, cached: bool = False) -> FrozenSet[str]:
    """The modules loaded by the time ``trainlint check PATH`` exits, in a fresh interpreter; ``cached``: with the
    result cache, as a pre-commit hook runs it, else with ``--no-cache``."""
    cache = [] if cached else ["--no-cache"]
    program = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
        "from trainlint.cli import main\n"
        f"main(['check', *{cache!r}, *{list(options)!r}, {str(path)!r}])\n"
    )
    process = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=path.parent, timeout=120)
    assert process.returncode in (0, 1), process.stderr
    last_line = process.stderr.rstrip().splitlines()[-1]
    assert last_line.startswith("MODULES "), process.stderr
    return frozenset(last_line.split()[1:])


def test_a_file_without_triggers_does_not_import_libcst(tmp_path: Path) -> None:
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\nprint(os.getcwd())\n", encoding="utf-8")
    modules = imported_by_check(plain)
    assert "trainlint.engine" in modules  # the file was checked...
    assert not {name for name in modules if name == "libcst" or name.startswith("libcst.")}  # ...without LibCST


@pytest.mark.parametrize("options", [(), ("--output-format", "text", "--statistics")], ids=["report", "statistics"])
def test_checking_a_training_script_imports_only_what_a_check_needs(options) -> None:
    modules = imported_by_check(TRAINING_SCRIPT, *options)
    assert "libcst" in modules and "trainlint.rules.amp.tl201_cuda_amp_on_other_device" in modules
    assert "click" in modules  # the command line is click's (issue 18): its import is part of the budget
    assert sorted(set(NEVER_ON_A_CHECK) & modules) == []
    # Only the rules whose triggers occur are imported (TL101/TL102 need a DataLoader's pin_memory/num_workers).
    assert "trainlint.rules.loaders.tl101_pin_memory_device_tensors" not in modules


def test_a_cached_check_loads_neither_openssl_nor_tempfile(tmp_path: Path) -> None:
    """A pre-commit hook's check digests the file and writes the cache table: ``hashlib`` would load OpenSSL and
    ``tempfile`` ``shutil`` and ``random``, ~11 ms together, for a hash and a file name."""
    script = tmp_path / "train.py"
    script.write_text(TRAINING_SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    modules = imported_by_check(script, cached=True)
    assert list((tmp_path / ".trainlint_cache").rglob("*.json")), "the check wrote its cache table"
    assert sorted({"hashlib", "_hashlib", "tempfile"} & modules) == []
    assert not [p.name for p in (tmp_path / ".trainlint_cache").rglob(".tmp-*")], "no temporary file is left"


def test_the_cache_digest_is_hashlibs_blake2b() -> None:
    """The digest of ``_blake2`` is ``hashlib.blake2b``'s: a cache written by either is read by the other."""
    import hashlib

    from trainlint.cache import digest

    assert digest(b"for x in loader: ...") == hashlib.blake2b(b"for x in loader: ...", digest_size=16).hexdigest()
    assert digest(b"", size=8) == hashlib.blake2b(b"", digest_size=8).hexdigest()


def test_the_library_does_not_import_click() -> None:
    """click is the console script's: linting from Python (an editor, a language server) never loads it."""
    program = (
        "import sys\n"
        "import trainlint.engine, trainlint.runner, trainlint.settings, trainlint.discovery, trainlint.report\n"
        "print('click' in sys.modules)\n"
    )
    process = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert (process.returncode, process.stdout) == (0, "False\n"), process.stderr
