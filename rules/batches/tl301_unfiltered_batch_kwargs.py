"""TL301 unfiltered-batch-kwargs: ``model(**batch)`` with keys that ``forward`` does not take.

The registry trigger is ``DataLoader``: every batch whose keys this rule can
prove comes from a ``DataLoader`` built in the same module.
"""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from trainlint.rules.batches.batch_keys import BatchKeys, ForwardSignature, KeyMap, KeyOrigin
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule

FILTER_HELPER = '''\
@functools.lru_cache(maxsize=None)
def _forward_parameters(model_class):
    """The keyword parameter names of ``model_class.forward``, and whether it also takes ``**kwargs``."""
    parameters = list(inspect.signature(model_class.forward).parameters.values())[1:]  # drop ``self``
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = frozenset(parameter.name for parameter in parameters if parameter.kind in keyword_kinds)
    return names, any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters)


def _wrapped_model(model):
    """The model that gets the batch through ``torch.compile`` and wrappers such as DataParallel.

    Their ``forward`` names no parameter and hands every input to ``_orig_mod`` or ``module``.
    """
    while True:
        inner = getattr(model, "_orig_mod", None)
        if inner is None and not _forward_parameters(type(model))[0]:
            inner = getattr(model, "module", None)
        if inner is model or not hasattr(type(inner), "forward"):
            return model
        model = inner


def _forward_kwargs(model, batch):
    """The items of ``batch`` that the model's ``forward`` accepts.

    A ``label`` key goes in as ``labels`` when forward takes ``labels`` but not ``label``;
    labels that forward takes under no name raise instead of being dropped without a loss.
    """
    model_class = type(_wrapped_model(model))
    accepted, takes_any_keyword = _forward_parameters(model_class)
    if takes_any_keyword:
        return batch
    kwargs = {key: value for key, value in batch.items() if key in accepted}
    if "label" in batch and "labels" in accepted and "label" not in accepted:
        kwargs.setdefault("labels", batch["label"])
    if {"label", "labels"} & batch.keys() and not {"label", "labels"} & kwargs.keys():
        raise TypeError(f"{model_class.__name__}.forward() takes neither 'label' nor 'labels': pass them by its name")
    return kwargs
'''
HELPER_NAME = "_forward_kwargs"


class UnfilteredBatchKwargs(Rule):
    """## What it does
    Finds `model(**batch)` where the module itself shows that the batch carries a
    key the model's `forward` does not take.

    The evidence is one of: a Dataset defined in the module whose
    `__getitem__` adds `idx`, raw text or a path (`os.path.join(...)`, or an
    element of a list from `glob.glob`/`os.listdir`) (in the dict it returns, or with
    `item["idx"] = idx` after building the item any way; kept by the default
    collate or by a collate that copies every key), a model class defined in the
    module (also inside DataParallel or `torch.compile`) whose `forward` lacks a
    key the batch provably carries, or a Hugging Face `datasets` column that is
    never removed: one read by the tokenizer in `.map`, or a column of a
    well-known hub data set (the GLUE tasks keep `idx`; `imdb`, `ag_news` and
    `rotten_tomatoes` keep `text`) that `remove_columns=[...]` does not name;
    also through transformers' `default_data_collator` and
    `DataCollatorWithPadding`, or a collate here returning
    `tokenizer.pad(examples, ...)`, which keep every non-string key. When the model's class is not in sight (a
    `model` parameter, `from_pretrained`), only keys that are no model input at
    all are reported (the item's index, strings, paths), and the message says so.
    The batch may come from a loader loop (also `enumerate(loader)`,
    `next(iter(loader))` and a loader given back by `accelerator.prepare`), from
    `{k: v.to(device) for k, v in batch.items()}` (with
    `if isinstance(v, torch.Tensor)` it keeps the keys known not to be strings),
    from a helper in the module that moves every key, or as the `batch` parameter
    of a per-step method called from such a loop.

    It stays silent without that evidence: tokenizer outputs, batches from a
    library collator, data filtered upstream (`map(..., remove_columns=...)`,
    `set_format(columns=...)`), dict comprehensions with an `if`, keys removed with
    `batch.pop(...)`, and calls of anything that is not model-like
    (`factory(**options)`, or a function, class or import whose name merely
    contains `model` or `net`, such as `log_model_inputs(**batch)`).

    ## Why is this bad
    Python passes every key as a keyword argument, so training dies on the first
    step with `TypeError: forward() got an unexpected keyword argument 'idx'`,
    after the data set, the model and often a GPU were set up. With Hugging Face
    models the same happens for raw text columns, for `label` (the model takes
    `labels`) and for `token_type_ids` on models that have none.

    ## Example
    ```python
    class Sentences(Dataset):
        def __getitem__(self, index):
            return {"input_ids": self.ids[index], "labels": self.labels[index], "idx": index}

    for batch in DataLoader(Sentences(), batch_size=16):
        loss = model(**batch).loss
    ```

    ## Use instead
    Pass only what `forward` declares, as Hugging Face's Trainer does with
    `remove_unused_columns`:
    ```python
    for batch in DataLoader(Sentences(), batch_size=16):
        loss = model(**_forward_kwargs(model, batch)).loss
    ```
    where `_forward_kwargs` (inserted once per module by the fix, standard library
    only) keeps the keys of `inspect.signature(type(model).forward)`, read once per
    model class and looking through `torch.compile` and DataParallel wrappers,
    keeps every key when `forward` takes `**kwargs`, and passes a `label` key as
    `labels` when `forward` takes `labels` but not `label`.

    ## Fix safety
    Unsafe: it changes which keys reach the model. Keys that `forward` does not
    declare are dropped instead of raising, and `label` is renamed to `labels`
    when only `labels` is accepted, so the loss is computed rather than silently
    skipped. Labels that `forward` takes under neither name are never dropped:
    there is no fix when the module shows that signature, and the helper raises
    `TypeError` when it meets one at run time. A model wrapped by
    `torch.compile`, DataParallel or DistributedDataParallel is filtered by the
    `forward` of the model inside it (`_orig_mod`, `.module`); a model whose own
    `forward` takes `**kwargs` still receives every key.

    ## Evidence
    `fixtures/TL301_unfiltered_batch_kwargs/` (eight bad cases with their fixed
    snapshots, and one ok case per silent shape above) and
    `tests/test_runtime_TL301.py`: every bad fixture raises the `TypeError` naming
    its extra key, and its fixed snapshot trains with per-step losses equal to
    `reference_trainer.run("text")` for the same seed. The GLUE fixture runs with
    in-memory stand-ins for the download and the tokenizer
    (`tests/hub_stand_ins.py`, the real SST-2 columns filled with the reference data).
    """

    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        batch_argument = next((argument for argument in node.args if argument.star == "**"), None)
        if batch_argument is None:
            return
        model = _model_of(node.func)
        analysis = self.facts.fact(BatchKeys)
        if model is None or not analysis.is_model_like(model):
            return
        keys = analysis.keys(batch_argument.value)
        if not keys:
            return
        signature = analysis.forward_signature(model)
        extra = _extra_keys(keys, signature)
        if not extra:
            return
        message = self._message(node, batch_argument, keys, extra, signature)
        if _drops_labels(keys, signature):
            self.report(node, message + "; no fix: filtering would drop the labels, forward() takes them under no name")
        else:
            self.report(node, message, fix=_filter_fix(model, batch_argument))

    def _message(
        self, call: cst.Call, batch: cst.Arg, keys: KeyMap, extra: List[str], signature: Optional[ForwardSignature]
    ) -> str:
        batch_code = self.facts.code(batch.value)
        if len(batch_code) > 30 or "\n" in batch_code:
            batch_code = "..."
        shown = f"{self.facts.code(call.func)}(**{batch_code})"
        described = ", ".join(_describe(key, keys[key]) for key in extra)
        if signature is None:  # the model's class is not in sight: only keys that are no model input at all
            inputs = "is not a model input" if len(extra) == 1 else "are not model inputs"
            message = (
                f"`{shown}` passes every batch key to forward(), including {described}, which {inputs}: "
                "TypeError on the first step unless forward() takes **kwargs"
            )
        else:
            message = (
                f"`{shown}` passes every batch key to {signature.owner}.forward(), which does not take {described}: "
                "TypeError on the first step"
            )
        return message + _label_note(keys, signature)


def _model_of(func: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The model in ``model(...)`` and in ``model.forward(...)``; None for anything but a dotted name."""
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return func if isinstance(func, (cst.Name, cst.Attribute)) else None


def _extra_keys(keys: KeyMap, signature: Optional[ForwardSignature]) -> List[str]:
    """Keys ``forward`` rejects: missing from its known signature, or no model input at all (an index, a string)."""
    if signature is None:
        return [key for key, origin in keys.items() if origin.not_a_model_input]
    return [
        key
        for key, origin in keys.items()
        if signature.rejects(key) or (origin.not_a_model_input and not signature.accepts(key))
    ]


def _describe(key: str, origin: KeyOrigin) -> str:
    reason = f"{origin.not_a_model_input}, " if origin.not_a_model_input else ""
    return f"'{key}' ({reason}from {origin.where})"


def _label_note(keys: KeyMap, signature: Optional[ForwardSignature]) -> str:
    """Say that ``label`` reaches the model as ``labels``: filtering must not silently drop the labels."""
    if "label" not in keys or "labels" in keys:
        return ""
    if signature is None:
        return "; the fix passes 'label' as 'labels' when forward() takes 'labels'"
    if "labels" in signature.names and "label" not in signature.names:
        return "; forward() takes 'labels': the fix passes 'label' as 'labels'"
    return ""


def _drops_labels(keys: KeyMap, signature: Optional[ForwardSignature]) -> bool:
    """The batch's ``label``/``labels`` would reach a known forward under no name: the helper would raise."""
    if signature is None:
        return False
    reach = ("label" in keys and (signature.accepts("label") or signature.accepts("labels"))) or (
        "labels" in keys and signature.accepts("labels")
    )
    return ("label" in keys or "labels" in keys) and not reach


def _filter_fix(model: cst.BaseExpression, batch: cst.Arg) -> CstFix:
    filtered = cst.Call(
        func=cst.Name(HELPER_NAME),
        args=[cst.Arg(model.deep_clone(), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(batch.value)],
    )
    return CstFix(
        message=f"Pass only the keys forward() accepts (`{HELPER_NAME}`)",
        applicability=Applicability.UNSAFE,
        replacements={batch: batch.with_changes(value=filtered)},
        imports=(Import("functools"), Import("inspect")),
        helpers=(FILTER_HELPER,),
    )
