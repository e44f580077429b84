"""trainlint: a linter and auto-fixer for PyTorch training scripts."""

import os as _os

__version__ = "0.1.0"

# In a source checkout the rules live in ../rules, which pyproject.toml installs as trainlint.rules.
# Run from the checkout's root (`python -m trainlint`, which puts ./trainlint ahead of an installed
# copy), this package must still find them: its __path__ gains the checkout's root, where `rules`
# is. An installed package has trainlint/rules and never takes this branch.
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_CHECKOUT = _os.path.dirname(_HERE)
if not _os.path.isdir(_os.path.join(_HERE, "rules")) and _os.path.isfile(_os.path.join(_CHECKOUT, "rules", "__init__.py")):
    __path__.append(_CHECKOUT)  # type: ignore[name-defined]  # noqa: F821 - a package's __path__
