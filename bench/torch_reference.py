#!/usr/bin/python3
"""Rangefinder's classifiers in PyTorch, timed per training step.

Token embedding + sinusoidal positions -> encoder -> masked mean pooling ->
LayerNorm -> Linear -> cross-entropy; AdamW (lr 4e-4, betas 0.9 / 0.98,
eps 1e-9, weight decay 0.01) with the gradient norm clipped at 1.0, as
data/configs/listops-full.ini. The encoders are in bench/torch_models.py
(full, ls, talk, linear, maelre, blrp) at the benchmark configuration of
bench/compare.sh. Usage:

    /usr/bin/python3 bench/torch_reference.py --encoder ls --batch 32 --seq 2000 --threads 2

prints one JSON line with step_s_median and tokens_per_s. --check runs one
forward pass at the given size and prints its time and loss instead.
With PyTorch 2.x: --sdpa runs attention through scaled_dot_product_attention
(its fused CPU kernel), --compile wraps the model in torch.compile; the
compilation happens in the warm-up steps, which are not timed.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models  # noqa: E402
from torch_models import ENCODERS, Classifier, default_config  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--encoder", choices=ENCODERS, default="full")
    p.add_argument("--batch", type=int, default=None, help="default 8 for full, else 32")
    p.add_argument("--seq", type=int, default=2000)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--ff", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=20)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--window", type=int, default=8, help="ls: window w")
    p.add_argument("--rank", type=int, default=32, help="ls: landmarks r")
    p.add_argument("--lmax", type=int, default=31, help="talk: left bound")
    p.add_argument("--rmax", type=int, default=31, help="talk: right bound")
    p.add_argument("--blocks", default="1,1", help="maelre: layers per block")
    p.add_argument("--reduce", type=int, default=4, help="maelre: merge stride nu")
    p.add_argument("--segment", type=int, default=100, help="blrp: segment size t")
    p.add_argument("--latent", type=int, default=100, help="blrp: latent size l")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=None, help="untimed first steps (default 1, 2 with --compile)")
    p.add_argument("--sdpa", action="store_true", help="attention through F.scaled_dot_product_attention")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2.x)")
    p.add_argument("--check", action="store_true", help="one timed forward pass, no training")
    args = p.parse_args()
    if args.warmup is None:
        args.warmup = 2 if args.compile else 1
    torch_models.USE_SDPA = args.sdpa
    if args.batch is None:
        args.batch = 8 if args.encoder == "full" else 32
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = default_config(args.encoder, vocab=args.vocab, classes=args.classes, seq=args.seq, dim=args.dim,
                         heads=args.heads, ff=args.ff, layers=args.layers, window=args.window, rank=args.rank,
                         lmax=args.lmax, rmax=args.rmax, blocks=[int(b) for b in args.blocks.split(",")],
                         reduce=args.reduce, segment=args.segment, latent=args.latent)
    model = Classifier(cfg)
    params = sum(t.numel() for t in model.parameters())
    forward = torch.compile(model) if args.compile else model
    tokens = torch.randint(1, args.vocab, (args.batch, args.seq))
    mask = torch.ones(args.batch, args.seq, dtype=torch.bool)
    labels = torch.randint(0, args.classes, (args.batch,))
    mode = "+".join([m for m, on in (("sdpa", args.sdpa), ("compile", args.compile)) if on]) or "eager"
    info = {"framework": f"torch {torch.__version__}", "mode": mode, "encoder": args.encoder, "threads": args.threads,
            "batch": args.batch, "seq": args.seq, "params": params}

    if args.check:
        t0 = time.perf_counter()
        with torch.no_grad():
            loss = F.cross_entropy(forward(tokens, mask), labels).item()
        print(json.dumps({**info, "forward_s": time.perf_counter() - t0, "loss": loss}))
        return

    opt = torch.optim.AdamW(model.parameters(), lr=4e-4, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    times, losses = [], []
    for step in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(forward(tokens, mask), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if step >= args.warmup:   # warm-up steps fill allocators (and compile)
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print(json.dumps({**info, "step_s_median": med, "tokens_per_s": args.batch * args.seq / med,
                      "loss_first": losses[0], "loss_last": losses[-1],
                      "loss_finite": all(math.isfinite(x) for x in losses)}))


if __name__ == "__main__":
    main()
