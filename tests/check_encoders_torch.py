"""Every encoder's forward and backward pass against PyTorch (TAP output).

Usage: check_encoders_torch.py DUMP_ENCODER_EXE

For each case below, tests/dump_encoder.c builds the classifier in the C
engine (f32), runs one padded batch forward and backward and writes the
checkpoint, the batch with its logits and loss, and every parameter's
gradient. Here the checkpoint is loaded into bench/torch_models.py's
Classifier (written separately from the C graph, autograd for the
backward) through its safetensors weights, the same batch runs in float64,
and logits, loss and every gradient element must agree within the
rounding-error bound below. Without torch and numpy the test reports SKIP.

The bound (the reasoning of tests/tolerance.h, carried through a whole
model). A sum of k terms computed in f32 in any order is off by at most
lambda sqrt(k) u times the sum of the terms' magnitudes, u = 2^-24, with
probability 1 - 2 exp(-lambda^2 / 2) when its rounding errors are
independent (Higham & Mary, SIAM J. Sci. Comput. 41(5), 2019). A value at
the end of a chain of such sums carries their relative errors with it,
which add like a random walk, so for any element y computed as a last sum
sum_j a_j from inputs that carry the errors of K multiply-adds,

    |y_f32 - y| <= F sqrt(K) u A,    A = sum_j |a_j|   (the sum's magnitude).

  - A comes from the float64 run. A Linear weight's gradient is a sum over
    tokens of x g^T, so A = sum_t |x_t| |g_t|^T; a bias sums |g_t|; a
    LayerNorm gain |x_hat_t| |g_t|; an embedding row the |g_t| of its
    tokens; a convolution the same correlation; the logits |W| |h| + |b|.
    Each token's vector x_t, g_t enters with its largest element in every
    place: the vectors are themselves results of sums, correct to a few u
    of their norm but not of their small elements. Parameters outside such
    a module (positions, CLS, BLRP's segment positions) use the largest
    |gradient| of the tensor. A is never below |y|, so a gradient that
    cancels to 0 in exact arithmetic (every attention's key bias: softmax
    ignores a shift shared by a query's scores) is held to the size of
    its terms, not to 0.
  - K bounds the multiply-adds on the longest path: every Linear,
    LayerNorm, Embedding and Conv1d call of the forward pass is a stage
    (parallel calls too, which over-counts), counted twice (an attention's
    scores, softmax and value sums sit between its projections), each of
    the longest reduction anywhere (k_max: a width, the MLP width, a
    convolution's inputs, the sequence length as a softmax's keys); twice
    that for gradients, whose path runs forward and back.
  - F = 32: lambda = 8 (each sum's bound fails with probability 2.5e-14,
    as in tests/tolerance.h), doubled for the element-wise chain after each
    sum (elementary functions within 4u: TOL_CHAIN = 32u is at most
    lambda sqrt(k) u for k >= 16), doubled again for the inputs' errors
    that LayerNorm's 1/sigma and exp's |x| amplify.
The loss adds its inputs' error (|d loss / d logits| sums to at most 2 per
row) to the bound of its own sums (log-sum-exp and the label's logit).
At these sizes this allows 1e-4 to 3e-4 of the magnitudes: 100 times and
more what rounding gives here (the worst ratio is printed), 50 times and
more below what a wrong residual, norm, mask, scale or pooling gives (the
mutations tried are in docs/testing.md).
"""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bench"))

try:
    import numpy  # noqa: F401 (load_file reads the files with it)
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from check_safetensors_torch import load_file
    from torch_models import from_rangefinder, rangefinder_names
except ImportError as e:
    torch = None
    import_error = e

U = 2.0 ** -24
SAFETY = 32

COMMON = ["data.task=random", "data.min_len=1", "data.vocab=11", "data.classes=5", "model.layers=2",
          "model.dim=16", "model.heads=2", "model.ff=32", "train.threads=2"]

# (name, valid tokens per row, padded length, overrides): every row but the
# first is padded; lengths cross windows, segments and merge cells
CASES = [
    ("full", "16,11,5", 16, ["model.encoder=full"]),
    ("full, CLS pooling, learned positions", "12,7,2", 12,
     ["model.encoder=full", "model.pool=cls", "model.pos=learned"]),
    ("ls", "14,9,3", 14, ["model.encoder=ls", "model.window=4", "model.rank=3"]),
    ("linear", "16,10,4", 16, ["model.encoder=linear"]),
    ("talk", "16,11,5", 16, ["model.encoder=talk", "model.heads=4", "model.lmax=3,1", "model.rmax=2,0"]),
    ("blrp", "13,8,4", 13, ["model.encoder=blrp", "model.pos=none", "model.segment=5", "model.latent=4"]),
    ("blrp, scale 1/sqrt(d)", "13,8,4", 13, ["model.encoder=blrp", "model.pos=none", "model.segment=5",
                                            "model.latent=4", "model.blrp_scale=model"]),
    ("maelre", "20,13,6", 20, ["model.encoder=maelre", "model.heads=4", "model.blocks=1,1", "model.reduce=3"]),
]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tap_py import ok, plan  # noqa: E402


def diag(text):
    for line in text.splitlines():
        print("# " + line, flush=True)


def token_max(t, dim=-1):
    """|t| replaced by its largest element along the feature axis `dim`"""
    return t.abs().amax(dim, keepdim=True).expand_as(t)


class Magnitudes:
    """Hooks on the model's Linear, LayerNorm, Embedding and Conv1d modules:
    per parameter, the magnitude A of the sum that forms its gradient
    (accumulated over every call); the number of calls and the longest
    reduction; the head's forward magnitude |W| |h| + |b|."""

    def __init__(self, model):
        self.grad = {}
        self.calls, self.k_max = 0, 0
        self.model = model
        for mod in model.modules():
            if isinstance(mod, (nn.Linear, nn.LayerNorm, nn.Embedding, nn.Conv1d)):
                mod.register_forward_hook(self.on_forward)

    def add(self, param, a):
        if param is not None:
            self.grad[param] = self.grad.get(param, 0) + a

    def on_forward(self, mod, inputs, out):
        x = inputs[0].detach()
        self.calls += 1
        if isinstance(mod, nn.Linear):
            self.k_max = max(self.k_max, mod.in_features)
            if mod is self.model.fc:
                self.logits = token_max(x) @ mod.weight.abs().t() + mod.bias.abs()
        elif isinstance(mod, nn.LayerNorm):
            self.k_max = max(self.k_max, x.shape[-1])
        elif isinstance(mod, nn.Conv1d):
            self.k_max = max(self.k_max, mod.in_channels * mod.kernel_size[0])
        out.register_hook(lambda g: self.on_grad(mod, x, g.detach()))

    def on_grad(self, mod, x, g):
        if isinstance(mod, nn.Conv1d):        # [B, channels, positions]: a token is a column
            xm, gm = token_max(x, 1), token_max(g, 1)
            self.add(mod.weight, torch.nn.grad.conv1d_weight(xm, mod.weight.shape, gm, mod.stride, mod.padding))
            self.add(mod.bias, gm.sum((0, 2)))
            return
        gm = token_max(g).reshape(-1, g.shape[-1])
        if isinstance(mod, nn.Linear):
            self.add(mod.weight, gm.t() @ token_max(x).reshape(-1, x.shape[-1]))
        elif isinstance(mod, nn.LayerNorm):
            xh = token_max(F.layer_norm(x, mod.normalized_shape, eps=mod.eps)).reshape(-1, x.shape[-1])
            self.add(mod.weight, (xh * gm).sum(0))
        else:
            self.add(mod.weight, torch.zeros_like(mod.weight).index_add_(0, x.reshape(-1), gm))
            return
        self.add(mod.bias, gm.sum(0))

    def of(self, param):
        a = self.grad.get(param)
        return a if a is not None else param.grad.abs().max().expand_as(param)


def worst(err, tol):
    """(largest err / tol, index); err above a zero tol counts as infinite."""
    ratio = torch.where(tol > 0, err / tol.clamp(min=1e-300), torch.where(err > 0, math.inf, 0.0))
    i = int(ratio.argmax())
    return float(ratio.reshape(-1)[i]), i


def check_case(exe, name, lengths, seq, overrides, tmp):
    args = COMMON + [f"data.max_len={seq}"] + overrides
    run = subprocess.run([exe, tmp, lengths] + args, capture_output=True, text=True)
    if not ok(run.returncode == 0, f"{name}: the C engine runs a padded batch forward and backward"):
        diag(run.stderr)
        return
    _, weights, meta = load_file(Path(tmp) / "checkpoint.safetensors")
    _, batch, _ = load_file(Path(tmp) / "batch.safetensors")
    _, grads, _ = load_file(Path(tmp) / "grads.safetensors")
    try:
        model = from_rangefinder(weights, json.loads(meta["config"]), seq).double()
    except ValueError as e:
        ok(False, f"{name}: the checkpoint loads into torch_models.Classifier: {e}")
        return
    ok(True, f"{name}: the checkpoint's {len(grads)} weights load into torch_models.Classifier, one each")

    mag = Magnitudes(model)
    tokens, mask = batch["tokens"].long(), batch["mask"] > 0
    labels = batch["labels"].long()
    logits = model(tokens, mask)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    k_max = max(mag.k_max, seq + 1)           # a softmax over every token and a CLS
    k_fwd = 2 * mag.calls * k_max
    rel_fwd, rel_grad = SAFETY * math.sqrt(k_fwd) * U, SAFETY * math.sqrt(2 * k_fwd) * U
    diag(f"{name}: {mag.calls} stages, k_max {k_max}: bound {rel_fwd:.2g} x magnitude (forward), "
         f"{rel_grad:.2g} (gradients)")

    tol = rel_fwd * mag.logits.detach()
    err = (batch["logits"].double() - logits.detach()).abs()
    r, _ = worst(err, tol)
    ok(r <= 1, f"{name}: logits within the bound (max error {err.max():.2e}, worst error/bound {r:.3f})")

    lse = torch.logsumexp(logits.detach(), 1)
    own = (lse.abs() + logits.detach().gather(1, labels[:, None])[:, 0].abs()).mean()
    tol_loss = 2 * tol.max() + SAFETY * math.sqrt(logits.shape[1]) * U * own
    err_loss = abs(float(batch["loss"]) - float(loss))
    ok(err_loss <= tol_loss, f"{name}: loss {float(loss):.6f} within {tol_loss:.1e} (error {err_loss:.1e})")

    bad, top, top_name = [], 0.0, ""
    for pname, (cname, transposed) in rangefinder_names(model).items():
        p = model.get_parameter(pname)
        c = grads[cname].double()
        c = c.t() if transposed else c
        e = (c - p.grad).abs()
        r, i = worst(e, rel_grad * mag.of(p))
        if r > top:
            top, top_name = r, cname
        if r > 1:
            bad.append(f"{cname}[{i}]: C {c.reshape(-1)[i]:.6e}, torch {p.grad.reshape(-1)[i]:.6e}, "
                       f"error/bound {r:.3g}")
    n = sum(p.numel() for p in model.parameters())
    if not ok(not bad, f"{name}: all {n} gradient elements of {len(grads)} parameters within the bound "
                       f"(worst error/bound {top:.3f}, {top_name})"):
        diag("\n".join(bad))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_encoders_torch.py DUMP_ENCODER_EXE")
    if torch is None:
        print(f"ok 1 - encoders against PyTorch # SKIP cannot import torch ({import_error})")
        print("1..1")
        return 0
    for name, lengths, seq, overrides in CASES:
        with tempfile.TemporaryDirectory(prefix="rf_enc_torch.") as tmp:
            check_case(sys.argv[1], name, lengths, seq, overrides, tmp)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
