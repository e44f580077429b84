# TL103 edge of trigger (_CUDA_TENSOR_TYPE): the CUDA tensor type is spelled `tc.FloatTensor` after `import torch.cuda as tc`; the rule's `move` resolves it to `torch.cuda.FloatTensor` (CUDA_TENSOR_TYPE on the qualified name), while the text holds no "cuda.<X>Tensor", ".to(", ".cuda(" or "device="
import numpy as np
import torch
import torch.cuda as tc
import torch.nn as nn

torch.set_default_tensor_type(tc.FloatTensor)

X = tc.FloatTensor(np.load("train_x.npy"))
Y = tc.FloatTensor(np.load("train_y.npy"))

net = nn.Sequential(nn.Linear(X.shape[1], 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
batch_size = 100

for epoch in range(50):
    for i in range(0, X.shape[0], batch_size):
        loss = ((net(X[i:i + batch_size]) - Y[i:i + batch_size]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
