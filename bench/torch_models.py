"""Rangefinder's classifiers in plain PyTorch, one per encoder (SPEC §0-§5).

Each model mirrors the C graph in core/ (model.c, encoders/*.c): the same
layers, the same parameter shapes and the same order of operations, written
the way a PyTorch user would write them (autograd does every backward, the
BLRP recurrence is a Python loop). They exist to time a training step against
Rangefinder's (bench/torch_reference.py drives them) and, loaded from a
Rangefinder checkpoint with from_rangefinder, as the independent reference
the engine's logits, loss and gradients are tested against
(tests/check_encoders_torch.py).

    full    pre-LN stack of multi-head softmax attention (encoders/full.c)
    ls      Transformer-LS long-short attention with DualLN (encoders/ls.c)
    talk    GLU -> TaLK convolution -> Linear (encoders/talk.c)
    linear  elu+1 kernel linear attention (encoders/linear.c)
    maelre  blocks of linear/dot attention with strided-conv merges (encoders/maelre.c)
    blrp    bidirectional long-range parser (encoders/blrp.c)

Masks are [B, N] bools, True at valid tokens, padding at the end of a row.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ENCODERS = ("full", "ls", "talk", "linear", "maelre", "blrp")


def masked_softmax(s, keep):
    """softmax over the last axis with the keys where `keep` is False
    excluded; a row with no valid key gives zeros, not NaN (as the C ops)."""
    if keep is None:
        return torch.softmax(s, dim=-1)
    p = torch.softmax(s.masked_fill(~keep, torch.finfo(s.dtype).min), dim=-1)
    # The masked entries are exactly 0 already unless a whole row is masked;
    # under torch.compile multiply always (a data-dependent test breaks the graph).
    compiling = getattr(torch, "compiler", None) is not None and torch.compiler.is_compiling()
    if compiling or not bool(keep.any(-1).all()):
        p = p * keep
    return p


def split_heads(x, h):
    """[B, N, D] -> [B, h, N, D/h]"""
    b, n, d = x.shape
    return x.view(b, n, h, d // h).transpose(1, 2)


def merge_heads(x):
    """[B, h, N, dk] -> [B, N, h*dk]"""
    b, h, n, dk = x.shape
    return x.transpose(1, 2).reshape(b, n, h * dk)


# When set (torch_reference.py --sdpa, PyTorch 2.x), full attention runs
# through F.scaled_dot_product_attention, PyTorch's fused (flash) kernel.
USE_SDPA = False


def mha(q, k, v, keep, heads, scale):
    """rf_attention: q [B, Nq, D], k, v [B, M, D], keep [B, M] or None -> [B, Nq, D]."""
    q, k, v = split_heads(q, heads), split_heads(k, heads), split_heads(v, heads)
    if USE_SDPA:
        mask = None if keep is None else keep[:, None, None, :]
        return merge_heads(F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale))
    s = (q @ k.transpose(-1, -2)) * scale
    p = masked_softmax(s, None if keep is None else keep[:, None, None, :])
    return merge_heads(p @ v)


def mlp(d, ff):
    return nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))


def sinusoidal(seq, d):
    """Vaswani et al.: sin on even, cos on odd channels (model.c fill_constants),
    computed in float64 and rounded to float32 as model.c does."""
    pos = torch.zeros(seq, d, dtype=torch.float64)
    t = torch.arange(seq, dtype=torch.float64)[:, None]
    freq = torch.pow(10000.0, -torch.arange(0, d, 2, dtype=torch.float64) / d)
    pos[:, 0::2], pos[:, 1::2] = torch.sin(t * freq), torch.cos(t * freq)
    return pos.float()


# ---- per-layer mixers: [B, N, d] (normalised) -> [B, N, d] ----

class FullAttention(nn.Module):
    """encoders/full.c: plain MHA over all N tokens, scores / sqrt(dk)."""

    def __init__(self, cfg, layer):
        super().__init__()
        d = cfg["dim"]
        self.h = cfg["heads"]
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mask):
        a = mha(self.q(x), self.k(x), self.v(x), mask, self.h, 1.0 / math.sqrt(x.shape[-1] // self.h))
        return self.o(a)


class LongShort(nn.Module):
    """encoders/ls.c + ops/ls_attention: segment-wise sliding window (w keys
    of the segment plus e = max(w/2, 1) on each side) and r dynamic-projection
    landmarks per head, one joint softmax; DualLN on K, V (LN_L) and on K̄, V̄
    (LN_G); the projection P = softmax_N(x W^P) from the layer input."""

    def __init__(self, cfg, layer):
        super().__init__()
        d, self.h, self.r, self.w = cfg["dim"], cfg["heads"], cfg["rank"], cfg["window"]
        self.q, self.k, self.v, self.out = (nn.Linear(d, d) for _ in range(4))
        self.proj = nn.Linear(d, self.h * self.r)
        self.ln_local, self.ln_global = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x, mask):
        b, n0, d = x.shape
        h, r, w = self.h, self.r, self.w
        dk, e = d // h, max(w // 2, 1)
        n = -(-n0 // w) * w                               # pad N up to a multiple of w
        if n > n0:
            x = F.pad(x, (0, 0, 0, n - n0))
            mask = F.pad(mask, (0, n - n0), value=False)
        q = self.q(x)
        k, v = self.ln_local(self.k(x)), self.ln_local(self.v(x))     # LN_L, shared by K and V

        # long range: P^T [B, h, r, N], softmax over the tokens per landmark
        logits = self.proj(x).transpose(1, 2)                          # [B, h*r, N]
        pt = masked_softmax(logits, mask[:, None, :]).view(b, h, r, n)
        kg = self.ln_global(merge_heads(pt @ split_heads(k, h)))       # [B, r, d], LN_G
        vg = self.ln_global(merge_heads(pt @ split_heads(v, h)))

        # short range: segment s of queries sees key positions [s*w - e, (s+1)*w + e)
        seg, band = n // w, w + 2 * e
        qs = split_heads(q, h).reshape(b, h, seg, w, dk) * (1.0 / math.sqrt(dk))
        kp = F.pad(split_heads(k, h), (0, 0, e, e))                    # [B, h, N + 2e, dk]
        vp = F.pad(split_heads(v, h), (0, 0, e, e))
        kb = kp.unfold(2, band, w).transpose(-1, -2)                   # [B, h, seg, band, dk]
        vb = vp.unfold(2, band, w).transpose(-1, -2)
        keep = F.pad(mask, (e, e), value=False).unfold(1, band, w)     # [B, seg, band]
        s_local = qs @ kb.transpose(-1, -2)                            # [B, h, seg, w, band]
        s_global = (qs.reshape(b, h, n, dk) @ split_heads(kg, h).transpose(-1, -2)).view(b, h, seg, w, r)
        keep = torch.cat([keep[:, None, :, None, :].expand(b, 1, seg, 1, band),
                          keep.new_ones(b, 1, seg, 1, r)], dim=-1)
        p = masked_softmax(torch.cat([s_local, s_global], dim=-1), keep)
        o = p[..., :band] @ vb + (p[..., band:].reshape(b, h, n, r) @ split_heads(vg, h)).view(b, h, seg, w, dk)
        o = merge_heads(o.reshape(b, h, n, dk)) * mask[:, :, None]     # padded queries output 0
        return self.out(o[:, :n0])


def talk_conv(x, offsets, mask, lmax, rmax):
    """ops/talk: x [B, N, D] in H head groups, offsets [B, N, 2H] (ã^l then
    ã^r), mask [B, N] -> [B, N, D]. Prefix sums, a gather at the floor and
    ceil of each fractional bound, linear interpolation; autograd gives the
    published gradients (zero through the clamp and at integer bounds)."""
    b, n, d = x.shape
    heads = offsets.shape[-1] // 2
    m = mask.to(x.dtype)
    s = torch.cumsum(x * m[:, :, None] / (lmax + rmax + 1), dim=1)
    s = F.pad(s, (0, 0, 1, 0))                 # row j + 1 holds S_j, row 0 holds S_{-1} = 0
    last = (m.sum(1) - 1).clamp(min=0)[:, None, None]                 # the sample's last valid position
    i = torch.arange(n, dtype=x.dtype, device=x.device)[None, :, None]
    al = torch.minimum((i - offsets[..., :heads] * lmax).clamp(min=0), last)
    ar = torch.minimum((i + offsets[..., heads:] * rmax).clamp(min=0), last)

    def per_channel(t):                        # [B, N, H] -> [B, N, D], R channels per head
        return t.repeat_interleave(d // heads, dim=2)

    def at(rows):                              # S at the integer rows [B, N, H], per channel
        return torch.gather(s, 1, per_channel(rows.long()))

    al_f, al_c, ar_f, ar_c = al.floor(), al.ceil(), ar.floor(), ar.ceil()
    alpha, beta = per_channel(al_c - al), per_channel(ar - ar_f)
    right = (1 - beta) * at(ar_f + 1) + beta * at(ar_c + 1)     # S(a^r)
    left = alpha * at(al_f) + (1 - alpha) * at(al_c)            # S(a^l - 1)
    return (right - left) * m[:, :, None]


class TaLK(nn.Module):
    """encoders/talk.c: Linear(d, 2d) + GLU -> TaLK -> Linear(d, d); offsets
    sigmoid(Linear(d, 2H)) of the layer's normalised input. lmax and rmax
    are one bound for every layer or a list with one per layer."""

    def __init__(self, cfg, layer):
        super().__init__()
        d, self.heads = cfg["dim"], cfg["heads"]
        self.lmax, self.rmax = (b[layer] if isinstance(b, (list, tuple)) else b for b in (cfg["lmax"], cfg["rmax"]))
        self.inp = nn.Linear(d, 2 * d)
        self.offsets = nn.Linear(d, 2 * self.heads)
        self.out = nn.Linear(d, d)

    def forward(self, x, mask):
        h = F.glu(self.inp(x), dim=-1)
        off = torch.sigmoid(self.offsets(x))
        return self.out(talk_conv(h, off, mask, self.lmax, self.rmax))


def linear_attention(q, k, v, keep, heads, scale):
    """ops/linear_attention: O = phi(sQ) (phi(sK)^T V) / (phi(sQ) (phi(sK)^T 1)),
    phi = elu + 1, padded keys contribute nothing, the sums divided by
    tau = sqrt(valid keys) (cancels in the ratio); zero denominators give 0."""
    fq = F.elu(split_heads(q, heads) * scale) + 1
    fk = F.elu(split_heads(k, heads) * scale) + 1
    v = split_heads(v, heads)
    if keep is not None:
        fk = fk * keep[:, None, :, None].to(fk.dtype)
        tau = keep.sum(1).clamp(min=1).to(fk.dtype).sqrt()[:, None, None, None]
    else:
        tau = math.sqrt(k.shape[1])
    kv = (fk.transpose(-1, -2) @ v) / tau                               # [B, h, dk, dk]
    ksum = fk.sum(2, keepdim=True).transpose(-1, -2) / tau              # [B, h, dk, 1]
    den = fq @ ksum                                                     # [B, h, N, 1]
    den = torch.where(den == 0, torch.ones_like(den), den)
    return merge_heads((fq @ kv) / den)


class AttentionSublayer(nn.Module):
    """linear.c rf_attention_sublayer: q, k, v, linear or dot attention, out."""

    def __init__(self, width, heads, linear, linear_scale=1.0):
        super().__init__()
        self.h, self.linear = heads, linear
        self.scale = linear_scale / (width // heads) ** 0.25
        self.q, self.k, self.v, self.out = (nn.Linear(width, width) for _ in range(4))

    def forward(self, x, mask):
        q, k, v = self.q(x), self.k(x), self.v(x)
        if self.linear:
            a = linear_attention(q, k, v, mask, self.h, self.scale)
        else:
            a = mha(q, k, v, mask, self.h, 1.0 / math.sqrt(x.shape[-1] // self.h))
        return self.out(a)


class LinearAttention(AttentionSublayer):
    def __init__(self, cfg, layer):
        super().__init__(cfg["dim"], cfg["heads"], True)


MIXERS = {"full": FullAttention, "ls": LongShort, "talk": TaLK, "linear": LinearAttention}


class PreNormLayer(nn.Module):
    """prenorm.c / maelre.c block_layer: x + Mixer(LN(x)); x + MLP(LN(x))."""

    def __init__(self, d, ff, mixer):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mixer, self.mlp = mixer, mlp(d, ff)

    def forward(self, x, mask):
        x = x + self.mixer(self.n1(x), mask)
        return x + self.mlp(self.n2(x))


class PreNormStack(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        mixer = MIXERS[cfg["encoder"]]
        self.layers = nn.ModuleList(PreNormLayer(cfg["dim"], cfg["ff"], mixer(cfg, i))
                                    for i in range(cfg["layers"]))
        self.out_dim = cfg["dim"]

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x, mask)
        return x, mask


# ---- whole-sequence encoders: [B, N, d] -> ([B, N', d'], mask [B, N'] or None) ----

class MAELRE(nn.Module):
    """encoders/maelre.c, 1-D, mean pooling (no CLS): block b has width
    dim*2^b, heads heads/2^(blocks-1-b), MLP ff*2^b, linear attention while
    its token count exceeds its width; between blocks padded tokens are
    zeroed, Conv1d(kernel 2nu+1, stride nu, padding nu) merges them and a
    Linear doubles the width; a merged token is valid iff its stride cell
    holds a valid token."""

    def __init__(self, cfg):
        super().__init__()
        blocks, d, ff, nu = cfg["blocks"], cfg["dim"], cfg["ff"], cfg["reduce"]
        self.nu, n, nb = nu, cfg["seq"], len(blocks)
        self.blocks, self.merges = nn.ModuleList(), nn.ModuleList()
        for b, layers in enumerate(blocks):
            if b > 0:
                n = (n - 1) // nu + 1
                w = d << (b - 1)
                self.merges.append(nn.ModuleDict({"conv": nn.Conv1d(w, w, 2 * nu + 1, stride=nu, padding=nu),
                                                   "widen": nn.Linear(w, 2 * w)}))
            width, heads = d << b, max(cfg["heads"] >> (nb - 1 - b), 1)
            self.blocks.append(nn.ModuleList(
                PreNormLayer(width, ff << b, AttentionSublayer(width, heads, n > width)) for _ in range(layers)))
        self.out_dim = d << (nb - 1)

    def forward(self, x, mask):
        for b, block in enumerate(self.blocks):
            if b > 0:
                merge, n = self.merges[b - 1], x.shape[1]
                t = (x * mask[:, :, None]).transpose(1, 2)              # padding reads as zero padding
                x = merge["widen"](merge["conv"](t).transpose(1, 2))
                cells = -(-n // self.nu)
                mask = F.pad(mask, (0, cells * self.nu - n)).view(-1, cells, self.nu).any(-1)
            for layer in block:
                x = layer(x, mask)
        return x, mask


def blrp_scale(d, heads, which):
    """SPEC §3: each of the h heads scales its scores by 1/sqrt(d/h), as
    standard MHA (which = "head"); "model" is the paper's literal 1/sqrt(d)
    for every head (model.blrp_scale)."""
    if which not in ("head", "model"):
        raise ValueError(f"blrp_scale = {which}: head or model")
    return 1.0 / math.sqrt(d if which == "model" else d // heads)


class BLRPBlock(nn.Module):
    """blrp.c attend + mlp_residual: resid + Wo·MHA(q, k, v), then + MLP(LN(.)),
    scores scaled by `scale` (blrp_scale above). The LN_q/LN_kv and q/k/v
    projections live here too; the caller applies them where blrp.c does."""

    def __init__(self, d, ff, heads, scale, cross=True):
        super().__init__()
        self.h, self.scale = heads, scale
        if cross:                              # Θ_X, Θ_L: LN_q on the queries, LN_kv on the keys
            self.norm_q, self.norm_kv = nn.LayerNorm(d), nn.LayerNorm(d)
        else:                                  # Θ_SELF: one LN (norm_attn) for q, k and v
            self.norm_attn = nn.LayerNorm(d)
        self.norm_mlp = nn.LayerNorm(d)
        self.q, self.k, self.v, self.out = (nn.Linear(d, d) for _ in range(4))
        self.mlp = mlp(d, ff)

    def project_q(self, y):
        return self.q(self.norm_q(y))

    def project_kv(self, y):
        n = self.norm_kv(y)
        return self.k(n), self.v(n)

    def attend(self, resid, q, kv, keep):
        h = resid + self.out(mha(q, kv[0], kv[1], keep, self.h, self.scale))
        return h + self.mlp(self.norm_mlp(h))


class BLRPSelf(BLRPBlock):
    """Θ_SELF layer (self_block): one LN feeds q, k and v."""

    def __init__(self, d, ff, heads, scale):
        super().__init__(d, ff, heads, scale, cross=False)

    def forward(self, x, keep):
        n = self.norm_attn(x)
        return self.attend(x, self.q(n), (self.k(n), self.v(n)), keep)


def join(parts):
    return torch.cat([p[0] for p in parts], 1), torch.cat([p[1] for p in parts], 1)


class BLRP(nn.Module):
    """encoders/blrp.c with its defaults: bidirectional, latent_init =
    phi_residual, phi = separate (Φ_F, Φ_B), share_directions = on (one
    Θ_X / Θ_L pair for both passes), scores scaled per cfg["blrp_scale"]
    (default head: 1/sqrt(d/h)). Θ_SELF runs once over all B*T segments;
    the recurrence over the segments is a Python loop. Updates are gated by
    the segment's validity, so padding leaves the latent unchanged."""

    def __init__(self, cfg):
        super().__init__()
        d, ff, heads = cfg["dim"], cfg["ff"], cfg["heads"]
        scale = blrp_scale(d, heads, cfg.get("blrp_scale", "head"))
        self.t, self.l = cfg["segment"], cfg["latent"]
        self.phi_fwd = nn.Linear(d, self.l, bias=False)
        self.phi_bwd = nn.Linear(d, self.l, bias=False)
        self.segment_pos = nn.Parameter(torch.randn(self.t, d) * 0.02)
        self.self_layers = nn.ModuleList(BLRPSelf(d, ff, heads, scale) for _ in range(cfg["layers"]))
        self.theta_x, self.theta_l = BLRPBlock(d, ff, heads, scale), BLRPBlock(d, ff, heads, scale)
        self.out_dim = d

    @staticmethod
    def phi(w, x, mask):
        """Φ(X) = softmax_N(X W_Φ)^T X over the valid tokens: [B, l, D]"""
        return masked_softmax(w(x).transpose(1, 2), mask[:, None, :]) @ x

    @staticmethod
    def gate(prev, nxt, valid):
        return prev + valid * (nxt - prev)

    def forward(self, x, mask):
        b, n, d = x.shape
        t, l = self.t, self.l
        T = -(-n // t)
        init_f, init_b = self.phi(self.phi_fwd, x, mask), self.phi(self.phi_bwd, x, mask)

        # Θ_SELF over all segments at once
        xp = F.pad(x, (0, 0, 0, T * t - n))
        mp = F.pad(mask, (0, T * t - n), value=False)
        h = (xp.view(b, T, t, d) + self.segment_pos).view(b * T, t, d)
        for layer in self.self_layers:
            h = layer(h, mp.view(b * T, t))
        seg = h.view(b, T, t, d)
        query = self.theta_x.project_q(seg)                            # Θ_X's queries, all segments
        seg_mask = [mp[:, s * t:(s + 1) * t] for s in range(T)]
        valid = [mp[:, s * t, None, None].to(x.dtype) for s in range(T)]
        ones_l = mask.new_ones(b, l)

        def theta_x(s, latent):
            return self.theta_x.attend(seg[:, s], query[:, s], self.theta_x.project_kv(latent), None)

        def theta_l(latent, kv, keep):
            return self.theta_l.attend(latent, self.theta_l.project_q(latent), kv, keep)

        # forward pass, i = 1..T
        init_kv = self.theta_l.project_kv(init_f)
        latent, kf = init_f, []
        for s in range(T):
            xf = theta_x(s, latent)
            kf.append(self.theta_l.project_kv(xf))
            if s > 0:
                nxt = theta_l(latent, join([kf[s], init_kv]), torch.cat([seg_mask[s], ones_l], 1))
            else:
                nxt = theta_l(latent, kf[s], seg_mask[s])
            latent = self.gate(latent, nxt, valid[s])

        # backward pass, i = T..1, starting from L_T^F
        init_kv = self.theta_l.project_kv(init_b)
        carry = latent
        for s in range(T - 1, -1, -1):
            if s == T - 1:
                xb = theta_x(s, init_b)
                keys = join([kf[s], self.theta_l.project_kv(xb)])
                keep = torch.cat([seg_mask[s], seg_mask[s]], 1)
            else:
                nxt = valid[s + 1]
                xb = theta_x(s, init_b + nxt * (carry - init_b))
                keys = join([kf[s], self.theta_l.project_kv(xb), init_kv])
                keep = torch.cat([seg_mask[s], seg_mask[s], (nxt[:, :, 0] > 0).expand(b, l)], 1)
            carry = self.gate(carry, theta_l(carry, keys, keep), valid[s])
        return carry, None                                             # L_1^B, every row valid


ENCODER_CLASSES = {"maelre": MAELRE, "blrp": BLRP}


class Classifier(nn.Module):
    """model.c: embedding + positions (cfg["pos"]: sinusoidal, learned or
    none) -> encoder -> pooling (cfg["pool"]: mean over the valid tokens,
    plain mean where the encoder returns no mask; or cls, a learned token
    prepended after the positions, valid in every row, whose final state is
    pooled) -> LN -> Linear."""

    def __init__(self, cfg):
        super().__init__()
        d, self.cls = cfg["dim"], cfg.get("pool", "mean") == "cls"
        self.embed = nn.Embedding(cfg["vocab"], d)
        pos = cfg.get("pos", "sinusoidal")
        if pos == "learned":
            self.pos = nn.Parameter(torch.randn(cfg["seq"], d) * 0.02)
        else:
            self.register_buffer("pos", sinusoidal(cfg["seq"], d) if pos == "sinusoidal" else None)
        if self.cls:
            if cfg["encoder"] in ENCODER_CLASSES:
                raise ValueError(f"pool = cls is not mirrored for {cfg['encoder']}")
            self.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.encoder = ENCODER_CLASSES.get(cfg["encoder"], PreNormStack)(cfg)
        self.norm = nn.LayerNorm(self.encoder.out_dim)
        self.fc = nn.Linear(self.encoder.out_dim, cfg["classes"])

    def forward(self, tokens, mask):
        x = self.embed(tokens)
        if self.pos is not None:
            x = x + self.pos
        if self.cls:
            x = torch.cat([self.cls_token.expand(x.shape[0], 1, -1), x], 1)
            mask = F.pad(mask, (1, 0), value=True)
        x, m = self.encoder(x, mask)
        if self.cls:
            pooled = x[:, 0]
        elif m is None:
            pooled = x.mean(1)
        else:
            m = m.to(x.dtype)[:, :, None]
            pooled = (x * m).sum(1) / m.sum(1).clamp(min=1)
        return self.fc(self.norm(pooled))


def default_config(encoder, **overrides):
    """The benchmark configuration (data/configs/listops-full.ini plus the
    encoder settings bench/compare.sh passes to rangefinder)."""
    cfg = dict(encoder=encoder, vocab=20, classes=10, seq=2000, dim=64, heads=8, ff=128, layers=2,
               window=8, rank=32,                  # ls
               lmax=31, rmax=31,                   # talk
               blocks=[1, 1], reduce=4,            # maelre
               segment=100, latent=100, blrp_scale="head")  # blrp
    cfg.update(overrides)
    return cfg


# ---- Rangefinder checkpoints ----

# the options each encoder mirrors only at these values
FIXED_OPTIONS = {
    "ls": {"dual_ln": "on", "proj_from": "input", "cls": "off"},
    "linear": {"kernel_map": "elu", "linear_scale": "1"},
    "maelre": {"kernel_map": "elu", "linear_scale": "1"},
    "talk": {"offset_heads": "0", "glu": "on"},
    "blrp": {"direction": "bidirectional", "latent_init": "phi_residual", "phi": "separate",
             "share_directions": "on"},
}


def rangefinder_names(model):
    """{parameter name here: (its name in a Rangefinder checkpoint, whether it
    is stored transposed)} for a Classifier: the names of core/model.c and
    core/encoders/*.c; a Linear's weight is [in, out] there."""
    table = {"embed.weight": "embed.tokens", "pos": "embed.positions", "cls_token": "embed.cls",
             "norm": "head.norm", "fc": "head.fc"}

    def block(t, c):                           # attention + MLP with norms named alike
        table.update({f"{t}.{x}": f"{c}.attn.{x}" for x in ("q", "k", "v", "out")})
        table.update({f"{t}.mlp.0": f"{c}.mlp.fc1", f"{t}.mlp.2": f"{c}.mlp.fc2", t: c})

    def layer(t, c, mixer):                    # a pre-LN layer
        kind = {LongShort: "ls", TaLK: "talk"}.get(type(mixer), "attn")
        table.update({f"{t}.n1": f"{c}.norm1", f"{t}.n2": f"{c}.norm2", f"{t}.mlp.0": f"{c}.mlp.fc1",
                      f"{t}.mlp.2": f"{c}.mlp.fc2", f"{t}.mixer": f"{c}.{kind}",
                      f"{t}.mixer.o": f"{c}.attn.out", f"{t}.mixer.inp": f"{c}.talk.in"})

    enc = model.encoder
    if isinstance(enc, PreNormStack):
        for i, lay in enumerate(enc.layers):
            layer(f"encoder.layers.{i}", f"layer{i}", lay.mixer)
    elif isinstance(enc, MAELRE):
        n = 0
        for b, blk in enumerate(enc.blocks):
            if b > 0:                          # named after the last layer before it
                table[f"encoder.merges.{b - 1}"] = f"layer{n - 1}.merge"
            for j, lay in enumerate(blk):
                layer(f"encoder.blocks.{b}.{j}", f"layer{n}", lay.mixer)
                n += 1
    else:
        for x in ("segment_pos", "phi_fwd", "phi_bwd"):
            table[f"encoder.{x}"] = f"blrp.{x}"
        for i in range(len(enc.self_layers)):
            block(f"encoder.self_layers.{i}", f"layer{i}.blrp.self")
        for x in ("theta_x", "theta_l"):
            block(f"encoder.{x}", f"blrp.cross.{x}")

    out = {}
    for name, _ in model.named_parameters():
        parts = name.split(".")
        cut = next(k for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in table)
        owner = model.get_submodule(".".join(parts[:-1])) if len(parts) > 1 else model
        c = ".".join([table[".".join(parts[:cut])]] + parts[cut:])
        out[name] = (c, isinstance(owner, nn.Linear) and parts[-1] == "weight")
    return out


def from_rangefinder(tensors, config, seq):
    """A Classifier (float32) holding a Rangefinder checkpoint's weights, run
    at length seq. tensors: {name: tensor} as stored (the optimizer moments
    are ignored); config: the checkpoint's __metadata__ "config", parsed
    JSON ({"model.dim": "64", ...}). ValueError for an option these models do
    not mirror, or unless every parameter here and every weight there is
    used once with the same shape."""
    def m(key):
        return config["model." + key]

    enc = m("encoder")
    for key, want in FIXED_OPTIONS.get(enc, {}).items():
        if m(key) != want:
            raise ValueError(f"model.{key} = {m(key)} is not mirrored for {enc} (only {want})")
    if config["data.task"] not in ("listops", "random", "lra_tsv"):
        raise ValueError(f"data.task = {config['data.task']}: only token ids are mirrored")

    def bounds(text):
        v = [int(x) for x in text.split(",")]
        return v[0] if len(v) == 1 else v

    cfg = default_config(enc, vocab=tensors["embed.tokens"].shape[0], classes=tensors["head.fc.bias"].shape[0],
                         seq=seq, pool=m("pool"), pos=m("pos"),
                         blrp_scale=config.get("model.blrp_scale", "model"),  # absent: 1/sqrt(d), as the engine
                         lmax=bounds(m("lmax")), rmax=bounds(m("rmax")),
                         blocks=[int(x) for x in m("blocks").split(",")] if m("blocks").strip()
                         else [1] * int(m("layers")),
                         **{k: int(m(k)) for k in ("layers", "dim", "heads", "ff", "window", "rank", "reduce",
                                                   "segment", "latent")})
    model = Classifier(cfg)
    weights = {k: v for k, v in tensors.items() if not k.startswith("optimizer.")}
    with torch.no_grad():
        for name, (c, transposed) in rangefinder_names(model).items():
            if c not in weights:
                raise ValueError(f"{name}: no tensor '{c}' in the checkpoint")
            w = weights.pop(c)
            p = model.get_parameter(name)
            if transposed:
                w = w.t()
            if w.shape != p.shape:
                raise ValueError(f"{c}: shape {tuple(w.shape)} where {name} has {tuple(p.shape)}")
            p.copy_(w)
    if weights:
        raise ValueError(f"checkpoint tensors without a parameter here: {sorted(weights)}")
    return model
