# TL401 edge of ModuleValues._resolves_to_nothing: `envs.step(x)` on a parameter resolves to the method its callers pass an instance of.
def train(envs, loader):
    total = 0
    for step, x in enumerate(loader):
        loss = envs.step(x)
        loss.backward()
        total += envs.step(x)
class Env:
    def step(self, x):
        return model(x)
train(Env(), loader)
