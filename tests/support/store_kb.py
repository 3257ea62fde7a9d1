"""The encoder id and dimension the store tests open their KBs with."""

ENCODER = "hash-encoder-test"
DIM = 8
