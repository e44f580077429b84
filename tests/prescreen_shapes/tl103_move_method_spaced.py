# TL103 edge of trigger (both parts): the code puts a space before every call's parenthesis (`np.load ("x.npy")`, `.cuda ()`); the rule reads the calls whatever the whitespace, while the trigger's substrings "np.load(", ".cuda(" (and ".to(") hold none
import numpy as np
import torch
import torch.nn as nn

X = torch.from_numpy (np.load ("x_train.npy")).float ().cuda ()
Y = torch.from_numpy (np.load ("y_train.npy")).float ().cuda ()

model = nn.Linear (X.shape [1], 1)
model.cuda ()
optimizer = torch.optim.SGD (model.parameters (), lr = 0.01)
for epoch in range (100):
    for i in range (0, len (X), 32):
        loss = ((model (X [i:i + 32]) - Y [i:i + 32]) ** 2).mean ()
        optimizer.zero_grad ()
        loss.backward ()
        optimizer.step ()
