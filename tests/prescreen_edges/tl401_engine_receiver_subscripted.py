# TL401 edge of ModuleValues.record_backward: `fabric[0].backward(out)` names no engine (`dotted` is None), so its receiver is differentiated and marked.
fabric = [make()]
total = 0
for x in loader:
    out = compute(x)
    fabric[0].backward(out)
    total += fabric
