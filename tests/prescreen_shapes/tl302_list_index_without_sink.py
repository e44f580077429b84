# TL302 edge of BatchQuestions.may_index_with_float (lists need takes_indices): a float tensor indexes a Python list in a module whose only index word is the string "cross_entropy"
import torch

config = {"loss": "cross_entropy", "classes": 3}
class_names = ["cat", "dog", "bird"]

scores = torch.rand(config["classes"])
best = scores.argmax().float()
print(class_names[best])
