"""TL101 pin-memory-device-tensors: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class PinMemoryDeviceTensors(Rule):
    """Not yet implemented."""
