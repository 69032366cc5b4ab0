#!/usr/bin/python3
"""Rangefinder's classifiers in PyTorch on one device, every way PyTorch offers.

For one encoder at the settings of data/configs/listops-ENC.ini (the model
keys and data.batch; random tokens of vocab 20, 10 classes, every token
valid, as `rangefinder bench --set data.task=random`), at one length, this
times each configuration

    precision  f32 (TF32 off: full-precision products, as Rangefinder's
               CUDA backend) or bf16 (autocast, f32 weights);
    pass       forward (no grad) or train (forward, backward, gradient
               clipping at 1.0 and AdamW, one training step);
    mode       eager     the models of bench/torch_models.py as written;
               sdpa      dot-product attention through
                         F.scaled_dot_product_attention (full, blrp, and maelre
                         where a block attends by dot products);
               flex      LS's window and global columns as one FlexAttention
                         call with a block mask (torch >= 2.5);
               compiled  torch.compile of the model with the best attention
                         of the two above; compilation happens in the first,
                         untimed call and is reported as compile_s.

and prints one JSON object per line and configuration: step_s_median (CUDA
events around each step after the warm-up; perf_counter on the CPU), the
peak device memory, and for sdpa and flex the largest difference of their
f32 logits from eager's (the variants must compute the same function). A
mode this torch or encoder lacks prints available: false and the reason; an
out-of-memory or any other failure prints its error, and the run goes on.

    python3 bench/gpu/torch_gpu.py --encoder ls --seq 2000            # ListOps settings, cuda
    python3 bench/gpu/torch_gpu.py --encoder ls --seq 16384 --batch 4
    python3 bench/gpu/torch_gpu.py --device cpu --encoder ls --seq 64 --batch 2 --steps 1 --warmup 0
"""
import argparse
import configparser
import gc
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import torch_models  # noqa: E402
from torch_models import ENCODERS, AttentionSublayer, Classifier, LongShort, default_config  # noqa: E402

MODES = ("eager", "sdpa", "flex", "compiled")
# the random task's token ids and classes (bench/compare.sh, torch_reference.py)
VOCAB, CLASSES = 20, 10
# model keys of the configs torch_models.default_config takes as they are
INT_KEYS = ("layers", "dim", "heads", "ff", "window", "rank", "reduce", "segment", "latent")
# options the PyTorch models mirror only at one value (torch_models.FIXED_OPTIONS
# for checkpoints; these two change the weights, not the work of a step)
UNMIRRORED = {"blrp": {"share_directions": "on", "head": "linear"}}


def config_from_ini(path, encoder, seq):
    """default_config at the [model] keys of a Rangefinder config, and the
    options it holds that the PyTorch model does not mirror."""
    ini = configparser.ConfigParser(inline_comment_prefixes=("#",))
    ini.read(path)
    m = ini["model"] if ini.has_section("model") else {}
    if m.get("encoder", encoder) != encoder:
        raise SystemExit(f"{path}: model.encoder = {m['encoder']}, not {encoder}")
    over = {k: int(m[k]) for k in INT_KEYS if k in m}
    for k in ("lmax", "rmax"):
        if k in m:
            v = [int(x) for x in m[k].split(",")]
            over[k] = v[0] if len(v) == 1 else v
    if "blocks" in m:
        over["blocks"] = [int(x) for x in m["blocks"].split(",")]
    for k in ("pool", "pos", "blrp_scale"):
        if k in m:
            over[k] = m[k]
    differs = [f"model.{k} = {m[k]} (PyTorch: {want})" for k, want in UNMIRRORED.get(encoder, {}).items()
               if m.get(k, want) != want]
    batch = int(ini["data"]["batch"]) if ini.has_section("data") and "batch" in ini["data"] else 32
    return default_config(encoder, vocab=VOCAB, classes=CLASSES, seq=seq, **over), batch, differs


# ---- FlexAttention for LS ----

def flex_api():
    """(flex_attention, create_block_mask), or None where this torch lacks them."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        return None
    return flex_attention, create_block_mask


class LongShortFlex(LongShort):
    """LongShort (same parameters) with its joint softmax over the segment's
    window and the r landmarks as one FlexAttention call: keys [K; K̄] of
    length n + r, a block mask that admits key j < n to query i when j lies in
    [s*w - e, (s+1)*w + e) for i's segment s, and every landmark column j >= n;
    padded keys are masked by a score_mod. The block mask depends only on the
    padded length, so it is built once, at the first call."""

    attend = None            # flex_attention compiled (it runs fused only compiled), set at first use

    def __init__(self, cfg, layer):
        super().__init__(cfg, layer)
        self.block_mask = None

    def forward(self, x, mask):
        b, n0, d = x.shape
        h, r, w = self.h, self.r, self.w
        dk, e = d // h, max(w // 2, 1)
        n = -(-n0 // w) * w
        if n > n0:
            x = F.pad(x, (0, 0, 0, n - n0))
            mask = F.pad(mask, (0, n - n0), value=False)
        q = self.q(x)
        k, v = self.ln_local(self.k(x)), self.ln_local(self.v(x))
        logits = self.proj(x).transpose(1, 2)
        pt = torch_models.masked_softmax(logits, mask[:, None, :]).view(b, h, r, n)
        kg = self.ln_global(torch_models.merge_heads(pt @ torch_models.split_heads(k, h)))
        vg = self.ln_global(torch_models.merge_heads(pt @ torch_models.split_heads(v, h)))
        qh = torch_models.split_heads(q, h)
        dt = qh.dtype    # under autocast the projections are bf16, the layer norms f32
        keys = torch.cat([torch_models.split_heads(k, h), torch_models.split_heads(kg, h)], 2).to(dt)
        values = torch.cat([torch_models.split_heads(v, h), torch_models.split_heads(vg, h)], 2).to(dt)
        if self.block_mask is None:
            self.block_mask = ls_block_mask(n, w, e, r, x.device)
        keep = F.pad(mask, (0, r), value=True)                          # landmarks are always valid

        def padded_keys(score, bi, hi, qi, kj):
            return torch.where(keep[bi, kj], score, -float("inf"))

        o = LongShortFlex.attend(qh, keys, values, score_mod=padded_keys, block_mask=self.block_mask,
                                 scale=1.0 / math.sqrt(dk))
        o = torch_models.merge_heads(o) * mask[:, :, None]
        return self.out(o[:, :n0])


def ls_block_mask(n, w, e, r, device):
    _, create_block_mask = flex_api()

    def window_or_landmark(b, h, qi, kj):
        start = (qi // w) * w - e
        return (kj >= n) | ((kj >= start) & (kj < start + w + 2 * e))

    return create_block_mask(window_or_landmark, B=None, H=None, Q_LEN=n, KV_LEN=n + r, device=device)


# ---- the configurations ----

def has_dot_attention(model):
    """Whether some layer attends by dot products (what SDPA replaces)."""
    enc = model.encoder
    if isinstance(enc, torch_models.BLRP):
        return True
    return any(isinstance(m, torch_models.FullAttention) or (isinstance(m, AttentionSublayer) and not m.linear)
               for m in enc.modules())


def make_model(cfg, attention):
    """A Classifier whose LS layers use FlexAttention when attention = flex."""
    if attention != "flex":
        return Classifier(cfg)
    saved = torch_models.MIXERS["ls"]
    torch_models.MIXERS["ls"] = LongShortFlex
    try:
        return Classifier(cfg)
    finally:
        torch_models.MIXERS["ls"] = saved


def attention_of(mode, encoder, sdpa_ok):
    """The attention a mode runs, or (None, why) where it cannot run."""
    flex = flex_api() is not None
    if mode == "eager":
        return "eager", None
    if mode == "sdpa":
        if not hasattr(F, "scaled_dot_product_attention"):
            return None, f"scaled_dot_product_attention not available in torch {torch.__version__}"
        return ("sdpa", None) if sdpa_ok else (None, "no dot-product attention in this encoder at this length")
    if mode == "flex":
        if encoder != "ls":
            return None, "FlexAttention is run for LS's window and landmark pattern only"
        return ("flex", None) if flex else (None, f"FlexAttention not available in torch {torch.__version__}")
    if not hasattr(torch, "compile"):
        return None, f"torch.compile not available in torch {torch.__version__}"
    if encoder == "ls" and flex:
        return "flex", None
    has_sdpa = hasattr(F, "scaled_dot_product_attention")
    return ("sdpa" if sdpa_ok and has_sdpa else "eager"), None


class Timer:
    """Seconds of one step: CUDA events on a GPU, perf_counter elsewhere."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def __call__(self, fn):
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1000
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


def is_oom(err):
    return isinstance(err, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in str(err)


def run_config(args, cfg, state, data, attention, mode, precision, pass_):
    """Times one configuration: {step_s_median, ...} for its JSON object."""
    device = data[0].device
    torch_models.USE_SDPA = attention == "sdpa"
    model = make_model(cfg, attention).to(device)
    model.load_state_dict(state)
    tokens, mask, labels = data
    timer = Timer(device)
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    prepare = 0.0
    if attention == "flex":
        if LongShortFlex.attend is None:
            LongShortFlex.attend = torch.compile(flex_api()[0])

        def build_block_masks():    # one eager forward: the block masks exist before any compilation
            with torch.no_grad():
                model(tokens, mask)
        prepare = timer(build_block_masks)
    forward = torch.compile(model) if mode == "compiled" else model
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bf16")
    out = {}
    if pass_ == "train":
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=4e-4, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            with autocast:
                loss = F.cross_entropy(forward(tokens, mask), labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
    else:
        model.eval()

        def step():
            with torch.no_grad(), autocast:
                forward(tokens, mask)

    first = prepare + timer(step)        # compiles (compiled, flex), fills the allocator
    if mode == "compiled" or attention == "flex":
        out["compile_s"] = first
    for _ in range(args.warmup):
        timer(step)
    times = [timer(step) for _ in range(args.steps)]
    out["step_s_median"] = statistics.median(times)
    out["step_s_min"] = min(times)
    if device.type == "cuda":
        out["peak_bytes"] = torch.cuda.max_memory_allocated()
    if mode != "eager" and precision == "f32" and pass_ == "forward":
        out["max_abs_diff_vs_eager"] = max_diff_from_eager(cfg, state, forward, data)
    return out


def max_diff_from_eager(cfg, state, model, data):
    """The largest |logit difference| of `model` (a variant: its attention
    set up, compiled or not) from the eager model with the same weights, in f32."""
    tokens, mask, _ = data
    with torch.no_grad():
        got = model(tokens, mask)
        use = torch_models.USE_SDPA
        torch_models.USE_SDPA = False
        ref = Classifier(cfg).to(tokens.device)
        ref.load_state_dict(state)
        want = ref(tokens, mask)
        torch_models.USE_SDPA = use
    return float((got.float() - want.float()).abs().max())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--encoder", choices=ENCODERS, required=True)
    p.add_argument("--config", help="default data/configs/listops-ENCODER.ini")
    p.add_argument("--seq", type=int, default=2000, help="tokens per sample (default 2000)")
    p.add_argument("--batch", type=int, help="default the config's data.batch")
    p.add_argument("--device", default="cuda")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--precisions", default="f32,bf16")
    p.add_argument("--passes", default="forward,train")
    p.add_argument("--steps", type=int, default=10, help="timed steps (the median is reported)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps after the first")
    args = p.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            p.error(f"--modes: {m} is not one of {', '.join(MODES)}")
    path = args.config or os.path.join(ROOT, "data", "configs", f"listops-{args.encoder}.ini")
    cfg, batch, differs = config_from_ini(path, args.encoder, args.seq)
    batch = args.batch or batch
    device = torch.device(args.device)
    if device.type == "cuda":
        # f32 means f32: no TF32 in products or convolutions (Rangefinder's cuBLAS math mode)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    dynamo = getattr(getattr(torch, "_dynamo", None), "config", None)
    for limit in ("cache_size_limit", "recompile_limit"):   # each configuration compiles a new model
        if dynamo is not None and hasattr(dynamo, limit):
            setattr(dynamo, limit, 64)
    torch.manual_seed(0)
    model = Classifier(cfg)
    state = model.state_dict()
    sdpa_ok = has_dot_attention(model)
    gen = torch.Generator().manual_seed(1)
    data = (torch.randint(1, VOCAB, (batch, args.seq), generator=gen).to(device),
            torch.ones(batch, args.seq, dtype=torch.bool, device=device),
            torch.randint(0, CLASSES, (batch,), generator=gen).to(device))
    info = {"framework": f"torch {torch.__version__}", "device": device_name(device), "encoder": args.encoder,
            "config": os.path.relpath(path, ROOT), "seq": args.seq, "batch": batch,
            "params": sum(t.numel() for t in model.parameters()), "steps": args.steps, "warmup": args.warmup}
    if differs:
        info["differs"] = differs
    # the compiled configurations last: their compilation is the slow part
    order = [m for m in modes if m != "compiled"] + [m for m in modes if m == "compiled"]
    for mode in order:
        attention, why = attention_of(mode, args.encoder, sdpa_ok)
        for precision in args.precisions.split(","):
            for pass_ in args.passes.split(","):
                row = {**info, "mode": mode, "attention": attention, "precision": precision, "pass": pass_}
                if attention is None:
                    row.update(available=False, reason=why)
                else:
                    try:
                        row.update(run_config(args, cfg, state, data, attention, mode, precision, pass_))
                    except Exception as err:    # noqa: BLE001  one failure must not end the others
                        row["error"] = "out of memory" if is_oom(err) else f"{type(err).__name__}: {err}"[:400]
                    gc.collect()       # an out-of-memory configuration's tensors, before the next
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                print(json.dumps(row), flush=True)


def device_name(device):
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


if __name__ == "__main__":
    main()
