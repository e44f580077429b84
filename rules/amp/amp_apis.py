"""How a call's arguments bind to the parameters of torch's AMP entry points (trainlint.amp_entry_points)."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import libcst as cst

Arguments = Dict[str, cst.Arg]  # parameter name -> the argument passing it, in call order


def bind_arguments(call: cst.Call, parameters: Tuple[str, ...]) -> Optional[Arguments]:
    """Map each argument to its parameter; None for ``*args``/``**kwargs`` or arguments the API lacks."""
    bound: Arguments = {}
    positional = iter(parameters)
    for arg in call.args:
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else next(positional, None)
        if name is None or name not in parameters or name in bound:
            return None
        bound[name] = arg
    return bound
