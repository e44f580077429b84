"""Generate a reproducible synthetic corpus shaped like a real model repository.

Most files are library modules with no training loop (layers, utilities,
configs); about one in ten is a training script, half of them with one of the
defects trainlint looks for and half with the trap that must stay silent.
The same seed always gives the same files.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

LIBRARY_TEMPLATE = '''"""Layer utilities, module {index}."""
import math
from typing import Optional

import torch
from torch import nn


class Block{index}(nn.Module):
    def __init__(self, dim: int = {dim}, hidden: Optional[int] = None) -> None:
        super().__init__()
        hidden = hidden or dim * 4
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))
        return x + y * {scale}


def init_weights_{index}(module: nn.Module) -> None:
    for name, parameter in module.named_parameters():
        if parameter.dim() > 1:
            nn.init.trunc_normal_(parameter, std=1.0 / math.sqrt(parameter.shape[-1]))
        elif "bias" in name:
            nn.init.zeros_(parameter)


CONFIG_{index} = {{"dim": {dim}, "depth": {depth}, "drop_rate": 0.{drop}}}
'''

TRAINING_BAD = '''"""Training script {index}."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(device="cuda"):
    x = torch.randn(256, 8).to(device)
    y = torch.randn(256, 1).to(device)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, pin_memory=True)
    model = torch.nn.Linear(8, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    total_loss = 0.0
    losses = []
    for xb, yb in loader:
        with torch.cuda.amp.autocast():
            loss = torch.nn.functional.mse_loss(model(xb), yb)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total_loss += loss
        losses.append(loss)
    return total_loss / len(loader), losses


if __name__ == "__main__":
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    main(device)
'''

TRAINING_OK = '''"""Training script {index}."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def main(device="cpu"):
    x = torch.randn(256, 8)
    y = torch.randn(256, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, pin_memory=torch.device(device).type == "cuda")
    model = torch.nn.Linear(8, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total_loss = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        loss = torch.nn.functional.mse_loss(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(loader)
'''


def generate(root: Path, files: int, seed: int = 0, training_share: float = 0.1) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        package = root / f"pkg{index // 50:03d}"
        package.mkdir(exist_ok=True)
        if rng.random() < training_share:
            template = TRAINING_BAD if rng.random() < 0.5 else TRAINING_OK
            (package / f"train_{index:05d}.py").write_text(template.format(index=index), encoding="utf-8")
        else:
            text = LIBRARY_TEMPLATE.format(
                index=index, dim=rng.choice([64, 128, 256]), depth=rng.randint(2, 24), scale=rng.random(), drop=rng.randint(0, 9)
            )
            (package / f"layers_{index:05d}.py").write_text(text, encoding="utf-8")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("destination", type=Path)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    generate(args.destination, args.files, args.seed)
    print(f"wrote {args.files} files under {args.destination}")


if __name__ == "__main__":
    main()
