# TL104 edge of `_surely_a_cuda_switch`: a switch with a `torch.device(...)` arm of the other sense; the screen cannot tell its pick and must keep the module.
import argparse
import torch
from torch.utils.data import DataLoader
device = "cuda" if torch.cuda.is_available() else "cpu"
a = "cuda" if args.cuda else "cpu"
b = torch.device("cpu") if args.cuda else torch.device("cuda")
if args.cuda:
    x = x.pin_memory()
