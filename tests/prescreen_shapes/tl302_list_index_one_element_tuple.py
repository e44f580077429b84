# TL302 edge of TreeFacts walk (_list_subscripts) for may_index_with_float: `vocab[pos,]`, a one-element tuple subscript of a list (ast gives a Tuple slice, skipped; LibCST one SubscriptElement, the rule's _single_index)
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)
vocab = ["a", "b", "c"]
pos = torch.zeros(1)
word = vocab[pos,]
