# TL104 edge of `_may_choose_a_device`: the only CPU comes from a helper named `pickDevice` ("device" in its lowered name), no device variable.
import argparse
import torch
from torch.utils.data import DataLoader
def pickDevice():
    return "cpu"
x = torch.zeros(1).to(pickDevice())
loader = DataLoader(ds, pin_memory=True)
