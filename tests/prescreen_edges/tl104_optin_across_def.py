# TL104 edge of `_surely_cuda_certain`: an opt-in flag's `if` around a `def` does not guard the pinning inside it (`_under_opt_in_flag` stops at the function).
import argparse
import torch
from torch.utils.data import DataLoader
device = "cuda" if torch.cuda.is_available() else "cpu"
p = argparse.ArgumentParser()
p.add_argument("--offload", action="store_true")
args = p.parse_args()
if args.offload:
    def f(x):
        return x.pin_memory()
