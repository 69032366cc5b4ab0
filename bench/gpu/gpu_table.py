#!/usr/bin/python3
"""One markdown table from `rangefinder bench --json --inference` lines and
bench/gpu/torch_gpu.py's JSON lines: per encoder, length and pass, our
seconds, each PyTorch configuration's, and the best PyTorch configuration
of each precision divided by ours (above 1: ours is faster). Rangefinder's
CUDA backend computes in f32 (no TF32), so the f32 ratio is the like-for-like
one; the bf16 ratio sets ours against PyTorch at its fastest precision.

    python3 bench/gpu/gpu_table.py FILE... [--cold FILE...]

FILEs hold lines of both kinds, in any order; the PyTorch lines of the
files after --cold only give each compiled configuration's cold
compilation time (bench/gpu/run.sh compiles them all first, untimed).

Ours: `pass` forward is inference_batch_s_median (a forward pass over a
test batch, batch assembly included), train is step_s_median (a training
step with its optimiser). Cells: seconds; n/a where the mode does not apply
or this torch lacks it; OOM; failed; - where nothing was measured (a
timed-out run). Below the table: compile times, each variant's largest f32
logit difference from eager, and the failures.
"""
import json
import sys

MODES = ("eager", "sdpa", "flex", "compiled")
PRECISIONS = ("f32", "bf16")
PASSES = ("forward", "train")


def read(paths):
    ours, torch_rows = {}, {}
    for path in paths:
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if str(r.get("framework", "")).startswith("torch"):
                key = (r["encoder"], r["seq"], r["pass"], r["precision"], r["mode"])
                torch_rows[key] = r
            elif "step_s_median" in r and "encoder" in r:
                ours[(r["encoder"], r["seq"])] = r
    return ours, torch_rows


def seconds(r):
    """The cell of a PyTorch configuration, and its time or None."""
    if r is None:
        return "-", None
    if r.get("available") is False:
        return "n/a", None
    if "error" in r:
        return ("OOM" if r["error"] == "out of memory" else "failed"), None
    return f"{r['step_s_median']:.4f}", r["step_s_median"]


def ratio(best, ours):
    return f"{best / ours:.2f}x" if best and ours else "-"


def cold_compilation(paths):
    """'ENCODER N=SEQ PASS PRECISION MODE SECONDS' of each compiled configuration."""
    _, rows = read(paths)
    return [f"{k[0]} N={k[1]} {k[2]} {k[3]} {k[4]} {r['compile_s']:.1f} s" for k, r in sorted(rows.items())
            if "compile_s" in r]


def main(args):
    cut = args.index("--cold") if "--cold" in args else len(args)
    paths, cold = args[:cut], args[cut + 1:]
    ours, rows = read(paths)
    keys = sorted({(k[0], k[1]) for k in rows} | set(ours), key=lambda k: (k[1], k[0]))
    any_row = next(iter(rows.values()), {})
    print(f"GPU: {any_row.get('device', '?')}; PyTorch: {any_row.get('framework', '?')}; "
          "ours f32 without TF32; PyTorch f32 with TF32 off, and bf16 autocast")
    print()
    head = ["encoder", "N", "batch", "pass", "ours f32 s"]
    for p in PRECISIONS:
        head += [f"{p} {m}" for m in MODES] + [f"best {p} ÷ ours"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    notes, diffs, failures = [], [], []
    for enc, seq in keys:
        o = ours.get((enc, seq), {})
        batch = o.get("batch") or next((r["batch"] for k, r in rows.items() if k[:2] == (enc, seq)), "?")
        for pass_ in PASSES:
            mine = o.get("inference_batch_s_median" if pass_ == "forward" else "step_s_median")
            cells = [enc, str(seq), str(batch), pass_, f"{mine:.4f}" if mine else "-"]
            for p in PRECISIONS:
                times = []
                for m in MODES:
                    r = rows.get((enc, seq, pass_, p, m))
                    cell, t = seconds(r)
                    cells.append(cell)
                    if t is not None:
                        times.append(t)
                    if r is None:
                        continue
                    tag = f"{enc} N={seq} {pass_} {p} {m}"
                    if "compile_s" in r:
                        notes.append(f"{tag}: {r['compile_s']:.1f} s")
                    if "max_abs_diff_vs_eager" in r:
                        diffs.append(f"{tag}: {r['max_abs_diff_vs_eager']:.2e}")
                    if "error" in r:
                        failures.append(f"{tag}: {r['error']}")
                cells.append(ratio(min(times) if times else None, mine))
            print("| " + " | ".join(cells) + " |")
    params = sorted({(k[0], k[1], r.get("params"), ours.get((k[0], k[1]), {}).get("params")) for k, r in rows.items()})
    print()
    print("Parameters, PyTorch / ours: " + "; ".join(f"{e} N={s} {t} / {m or '-'}" for e, s, t, m in params))
    differs = sorted({d for r in rows.values() for d in r.get("differs", [])})
    if differs:
        print("Not mirrored in PyTorch (the weights, not the work of a step): " + "; ".join(differs))
    for title, items in (("First call with compilation, warm cache (left out of the times)", notes),
                         ("Cold compilation, each configuration's first", cold_compilation(cold)),
                         ("Largest f32 logit difference from eager", diffs), ("Failed", failures)):
        if items:
            print(f"{title}: " + "; ".join(items))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
