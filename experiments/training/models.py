"""The model trained by experiments/training_vs_sim.sh, sized for the emulated cluster.

A small transformer encoder classifier (the one of examples/python/train_ddp.py, made wider:
2 layers of width 128 over 32 tokens, 525,834 parameters, 2.1 MB of fp32 gradients).
Why this size: on 2 shared cores and a 200 Mbit/s emulated network one iteration's compute and
its gradient allreduces are of the same order (tens to hundreds of milliseconds), so neither
hides the other and both the compute effects and the network show in the iteration time.

`make_net` is the `module:callable` form `python3 -m ddl.workload` takes: the module carries
its `example_input` (one sequence of token ids).
"""
import torch
import torch.nn as nn

VOCABULARY = 1000
TOKENS = 32
CLASSES = 10


class SmallTransformer(nn.Module):
    def __init__(self, width=128, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCABULARY, width)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, dropout=0.0,
                                           batch_first=True)
        # enable_nested_tensor=False: the same kernels in training and in ddl.workload's timing.
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, CLASSES)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


def make_net():
    torch.manual_seed(0)
    net = SmallTransformer()
    net.example_input = torch.randint(0, VOCABULARY, (1, TOKENS))
    return net
