import torch
from torch import nn

vocab = {
    "<UNK>": 0, "<PAD>": 1,
    "영화": 2, "좋다": 3, "나쁘다": 4, "재미있다": 5,
}
tokens = [["영화", "정말", "좋다"], ["영화", "나쁘다"]]
encoded = [[vocab.get(token, vocab["<UNK>"]) for token in seq]
           for seq in tokens]
max_len = max(len(seq) for seq in encoded)
padded = [seq + [vocab["<PAD>"]] * (max_len - len(seq))
          for seq in encoded]
inputs = torch.tensor(padded, dtype=torch.long)

embedding = nn.Embedding(len(vocab), 3, padding_idx=vocab["<PAD>"])
vectors = embedding(inputs)
