# TL401 edge of ModuleValues.record_backward: `fabric.backward(loss=out)` gives no positional loss, so `backward_loss` takes the receiver itself.
fabric = make()
total = 0
for x in loader:
    out = compute(x)
    fabric.backward(loss=out)
    total += fabric
