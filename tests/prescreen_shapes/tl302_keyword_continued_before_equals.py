# TL302 edge of trigger _INDEX_USE: the model call's keyword is continued by a backslash before its `=` (`input_ids \` + newline + `= ids`), still the keyword `input_ids` to `_index_uses`; the keyword pattern allows only `\s*` between the name and `=`, no backslash. Contrived
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def score(texts, checkpoint="distilbert-base-uncased", max_len=32):
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint)
    ids = torch.zeros(len(texts), max_len)
    mask = torch.zeros(len(texts), max_len, dtype=torch.long)
    for row, text in enumerate(texts):
        tokens = tokenizer.encode(text)[:max_len]
        ids[row, : len(tokens)] = torch.tensor(tokens)
        mask[row, : len(tokens)] = 1
    with torch.no_grad():
        out = model(input_ids \
= ids, attention_mask=mask)
    return out.logits.softmax(-1)
