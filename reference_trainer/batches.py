"""Passing a dict batch to ``model.forward`` safely.

Why: ``model(**batch)`` raises ``TypeError: forward() got an unexpected
keyword argument 'idx'`` as soon as the collate function keeps bookkeeping
keys (``idx``, ``sentence``) next to the model inputs. The fix is to keep only
the keys ``forward`` declares, read once per model class from its signature.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple, Optional

from torch import nn


class ForwardParameters(NamedTuple):
    """The keyword arguments a ``forward`` accepts.

    ``names``: the parameters that can be passed by keyword.
    ``var_keyword``: True when ``forward`` takes ``**kwargs`` and so accepts any key.
    """

    names: frozenset[str]
    var_keyword: bool


# Weak keys: caching must not keep classes defined at run time (in tests, in notebooks) alive.
_CACHE: weakref.WeakKeyDictionary[type, ForwardParameters] = weakref.WeakKeyDictionary()


def forward_parameters(model: nn.Module) -> ForwardParameters:
    """The keyword parameters of ``type(model).forward``, read once per class (signatures are slow to build)."""
    model_class = type(model)
    cached = _CACHE.get(model_class)
    if cached is None:
        parameters = list(inspect.signature(model_class.forward).parameters.values())[1:]  # drop ``self``
        names = frozenset(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        cached = _CACHE[model_class] = ForwardParameters(names, any(p.kind is p.VAR_KEYWORD for p in parameters))
    return cached


def filter_batch(
    model: nn.Module, batch: Mapping[str, Any], *, label_aliases: Optional[Mapping[str, str]] = None
) -> dict[str, Any]:
    """Return the part of ``batch`` that ``model.forward`` accepts, as a new dict.

    Every key is kept when ``forward`` takes ``**kwargs``. ``label_aliases``
    (e.g. ``{"label": "labels"}``) renames a key only on explicit request and
    only when ``forward`` names the target but not the source, so a model
    that really wants ``label`` still gets it; the target key, if already in
    the batch, wins. Renaming is opt-in because it changes what the model
    computes (given ``labels`` it returns a loss); without it ``label`` is
    dropped like any other key ``forward`` does not name.
    """
    accepted = forward_parameters(model)
    filtered = dict(batch)
    for source, target in (label_aliases or {}).items():
        if source in filtered and target not in filtered and target in accepted.names and source not in accepted.names:
            filtered[target] = filtered.pop(source)
    if accepted.var_keyword:
        return filtered
    return {key: value for key, value in filtered.items() if key in accepted.names}
