# TL302 edge of trigger _FLOAT_TENSOR: `.to(next(model.parameters()).device, torch.float32)`, a positional float dtype after an argument that holds a call: the `.to\([^)]*float` pattern stops at the first `)`
import torch
from torch import nn
from transformers import AutoModelForSequenceClassification, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
encoded = tokenizer(["a good film", "a dull film"], padding=True, return_tensors="pt")
label_ids = torch.tensor([1, 0]).to(next(model.parameters()).device, torch.float32)
outputs = model(**encoded, labels=label_ids)
outputs.loss.backward()
