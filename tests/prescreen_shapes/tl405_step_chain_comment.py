# TL405 edge of trigger (backward and a named step): the parameter `opt` is stepped in a parenthesised chain with a comment between the name and the step call; the stepped owner (trainlint.analysis.calls) is the owner `opt`, while the raw-text pass of triggered_codes meets `#` where the step pattern allows only `[\s\\]*`, and the other trigger wants the name of the package of torch's update rules, absent here. Contrived
import torch.nn.functional as F


def fit(model, opt, loader, epochs=3):
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            loss = F.mse_loss(model(x), y)
            loss.backward()
            (
                opt  # gradients clipped by the hook registered in build()
                .step()
            )
    return model
