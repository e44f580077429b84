"""TL201 cuda-amp-on-other-device: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class CudaAmpOnOtherDevice(Rule):
    """Not yet implemented."""
