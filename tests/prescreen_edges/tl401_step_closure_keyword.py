# TL401 edge of ModuleValues._steps_a_closure: `opt.step(closure=closure)` returns what a def of this module returns.
def closure():
    loss = criterion(out, y)
    loss.backward()
    return loss
for x in loader:
    model(x).backward()
    seen.append(opt.step(closure=closure))
seen = []
