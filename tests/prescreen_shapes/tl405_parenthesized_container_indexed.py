# TL405 edge of trigger (backward and a named step): the stepped optimizer is an item of a parenthesised container, `(opts)[name].step()`; the step analysis reads `opts` through its parentheses (dotted, indexed: the plural s dropped), while the step pattern allows a closing parenthesis only after the subscript, not between the name and its brackets. Contrived
import torch.nn.functional as F


def fit_gan(gen, disc, opts, loader, epochs=3):
    for _ in range(epochs):
        for real, noise in loader:
            fake = gen(noise)
            d_loss = F.softplus(disc(fake.detach())).mean() + F.softplus(-disc(real)).mean()
            d_loss.backward()
            (opts)["disc"].step()
            g_loss = F.softplus(-disc(fake)).mean()
            g_loss.backward()
            (opts)["gen"].step()
    return gen
