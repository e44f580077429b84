"""Command line: ``python -m reference_trainer --task lstm --epochs 2 --device auto --seed 0``.

Prints the mean training loss of each epoch. Bad arguments, including a
device this machine does not have, exit with status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Optional

from .devices import DeviceUnavailableError
from .runner import run
from .tasks import TASKS


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_trainer", description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True, choices=sorted(TASKS))
    parser.add_argument("--epochs", type=_positive_int, default=1)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=_positive_int, default=None, help="batches per epoch (default: all)")
    parser.add_argument("--amp", action="store_true", help="mixed precision (fp16 + loss scaling on CUDA)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result = run(
            args.task, seed=args.seed, epochs=args.epochs, device=args.device, max_steps=args.max_steps, amp=args.amp
        )
    except DeviceUnavailableError as error:
        parser.error(str(error))
    print(f"task={result.task} device={result.device} seed={result.seed} steps={len(result.step_losses)}")
    for epoch, loss in enumerate(result.epoch_losses, start=1):
        print(f"epoch {epoch}: loss {loss:.6f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
