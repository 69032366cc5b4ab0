#!/usr/bin/python3
"""The same classifier as Rangefinder's, in PyTorch, timed per training step.

Pre-LN encoder (full attention), token embedding + sinusoidal positions,
masked mean pooling, LayerNorm, Linear, cross-entropy, AdamW. Usage:

    /usr/bin/python3 bench/torch_reference.py --batch 8 --seq 2000 --threads 2

prints one JSON line with step_s_median and tokens_per_s.
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mask):
        b, n, d = x.shape
        split = lambda t: t.view(b, n, self.h, d // self.h).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        s = q @ k.transpose(-1, -2) / math.sqrt(d // self.h)
        s = s.masked_fill(~mask[:, None, None, :], float("-inf"))
        a = torch.softmax(s, dim=-1)
        return self.o((a @ v).transpose(1, 2).reshape(b, n, d))


class Layer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))

    def forward(self, x, mask):
        x = x + self.attn(self.n1(x), mask)
        return x + self.mlp(self.n2(x))


class Classifier(nn.Module):
    def __init__(self, vocab, classes, d, heads, ff, layers, seq):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        pos = torch.zeros(seq, d)
        t = torch.arange(seq)[:, None].float()
        freq = torch.pow(10000.0, -torch.arange(0, d, 2).float() / d)
        pos[:, 0::2], pos[:, 1::2] = torch.sin(t * freq), torch.cos(t * freq)
        self.register_buffer("pos", pos)
        self.layers = nn.ModuleList(Layer(d, heads, ff) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, classes)

    def forward(self, tokens, mask):
        x = self.embed(tokens) + self.pos
        for layer in self.layers:
            x = layer(x, mask)
        m = mask.float()[:, :, None]
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1)
        return self.fc(self.norm(pooled))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=2000)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--ff", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=20)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Classifier(args.vocab, args.classes, args.dim, args.heads, args.ff, args.layers, args.seq)
    opt = torch.optim.AdamW(model.parameters(), lr=4e-4, betas=(0.9, 0.98), eps=1e-9)
    tokens = torch.randint(1, args.vocab, (args.batch, args.seq))
    mask = torch.ones(args.batch, args.seq, dtype=torch.bool)
    labels = torch.randint(0, args.classes, (args.batch,))
    times = []
    for step in range(args.steps + 1):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(tokens, mask), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step > 0:   # the first step warms up allocators
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print(json.dumps({"framework": f"torch {torch.__version__}", "threads": args.threads,
                      "batch": args.batch, "seq": args.seq, "step_s_median": med,
                      "tokens_per_s": args.batch * args.seq / med}))


if __name__ == "__main__":
    main()
