"""Transformer models for ddl's training workloads: small, self-contained torch definitions.

No weights are downloaded or loaded: the models exist to be walked by ddl.workload (parameter
counts, forward multiply-adds, gradient order), so their shapes follow the published
architectures and their initialisation is torch's default.

  gpt2_small  GPT-2 small (Radford et al. 2019, as Hugging Face's GPT2LMHeadModel lays it out):
              12 pre-norm blocks, d = 768, 12 heads, MLP 4d with GELU, vocabulary 50257,
              context 1024, learned positions, the output projection tied to the token
              embedding. 124,439,808 parameters.
  bert_base   BERT-base with its pre-training heads (Devlin et al. 2018, as BertForPreTraining):
              12 post-norm layers, d = 768, 12 heads, MLP 4d, vocabulary 30522, 512 positions,
              2 token types, pooler, masked-LM head (transform + decoder tied to the word
              embedding, own bias) and next-sentence head. 110,106,428 parameters
              (109,482,240 without the two heads, the "BertModel" count).

Attention scores and their weighted sum (q k^T and A v) are a module of their own,
DotProductAttention, with no parameters, so the forward hooks see their shapes and count their
multiply-adds as a layer of the workload.
"""
import math

import torch
from torch import nn


class DotProductAttention(nn.Module):
    """softmax(q k^T / sqrt(d_head) [+ causal mask]) v for q, k, v of shape (batch, heads, tokens, d_head)."""

    def __init__(self, causal):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if self.causal:
            t, s = scores.shape[-2:]
            mask = torch.ones(t, s, dtype=torch.bool, device=q.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        return scores.softmax(dim=-1) @ v


def split_heads(x, heads):
    b, t, d = x.shape
    return x.view(b, t, heads, d // heads).transpose(1, 2)


def merge_heads(x):
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)


# ---------------------------------------------------------------------------------------------
# GPT-2 small


class GPT2Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)  # q, k, v in one matrix, as GPT-2 stores them
        self.core = DotProductAttention(causal=True)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(x.shape[-1], dim=-1)
        y = self.core(split_heads(q, self.heads), split_heads(k, self.heads), split_heads(v, self.heads))
        return self.c_proj(merge_heads(y))


class GPT2MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = GPT2Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = GPT2MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, vocab=50257, context=1024):
        super().__init__()
        self.context = context
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.h = nn.ModuleList(GPT2Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied: one parameter, counted once (in wte)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


# ---------------------------------------------------------------------------------------------
# BERT-base


class BertEmbeddings(nn.Module):
    def __init__(self, d, vocab, positions, token_types):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(positions, d)
        self.token_type_embeddings = nn.Embedding(token_types, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.word_embeddings(ids) + self.position_embeddings(pos) + self.token_type_embeddings(torch.zeros_like(ids))
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.core = DotProductAttention(causal=False)

    def forward(self, x):
        q, k, v = (split_heads(f(x), self.heads) for f in (self.query, self.key, self.value))
        return merge_heads(self.core(q, k, v))


class BertSelfOutput(nn.Module):
    def __init__(self, d_in, d):
        super().__init__()
        self.dense = nn.Linear(d_in, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.self = BertSelfAttention(d, heads)
        self.output = BertSelfOutput(d, d)

    def forward(self, x):
        return self.output(self.self(x), x)


class BertIntermediate(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.dense = nn.Linear(d, 4 * d)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attention = BertAttention(d, heads)
        self.intermediate = BertIntermediate(d)
        self.output = BertSelfOutput(4 * d, d)

    def forward(self, x):
        a = self.attention(x)
        return self.output(self.intermediate(a), a)


class BertEncoder(nn.Module):
    def __init__(self, layers, d, heads):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(d, heads) for _ in range(layers))

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class BertPooler(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.dense = nn.Linear(d, d)

    def forward(self, x):
        return torch.tanh(self.dense(x[:, 0]))


class BertPredictionHead(nn.Module):
    """Masked-LM head: dense + GELU + LayerNorm, then the decoder tied to the word embedding."""

    def __init__(self, d, word_embeddings):
        super().__init__()
        self.transform = nn.Sequential()
        self.transform.add_module("dense", nn.Linear(d, d))
        self.transform.add_module("act", nn.GELU())
        self.transform.add_module("LayerNorm", nn.LayerNorm(d, eps=1e-12))
        vocab = word_embeddings.num_embeddings
        self.decoder = nn.Linear(d, vocab)  # its bias is its own; its weight is the embedding's
        self.decoder.weight = word_embeddings.weight

    def forward(self, x):
        return self.decoder(self.transform(x))


class BertPreTrainingHeads(nn.Module):
    def __init__(self, d, word_embeddings):
        super().__init__()
        self.predictions = BertPredictionHead(d, word_embeddings)
        self.seq_relationship = nn.Linear(d, 2)  # next-sentence prediction


class Bert(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, vocab=30522, positions=512, token_types=2):
        super().__init__()
        self.context = positions
        self.embeddings = BertEmbeddings(d, vocab, positions, token_types)
        self.encoder = BertEncoder(layers, d, heads)
        self.pooler = BertPooler(d)
        self.cls = BertPreTrainingHeads(d, self.embeddings.word_embeddings)

    def forward(self, ids):
        x = self.encoder(self.embeddings(ids))
        pooled = self.pooler(x)
        return self.cls.predictions(x), self.cls.seq_relationship(pooled)


# ---------------------------------------------------------------------------------------------


# name -> (constructor, reference batch in sequences, published parameter count and its source)
MODELS = {
    "gpt2_small": (GPT2, 8, "124M (OpenAI's released GPT-2 small; the paper's Table 2 says 117M)"),
    "bert_base": (Bert, 8, "110M (Devlin et al. 2018, BERT-base)"),
}


def build(name):
    """The model `name` of MODELS with its example input: one full-context sequence of token ids."""
    model = MODELS[name][0]()
    model.example_input = torch.zeros(1, model.context, dtype=torch.long)
    model.short_input = torch.zeros(1, 16, dtype=torch.long)  # enough for the gradient order
    model.sample_unit = f"sequence of {model.context} tokens"
    model.reference_batch = MODELS[name][1]
    return model
