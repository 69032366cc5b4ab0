"""bench/gpu/torch_gpu.py on the CPU, tiny shapes, one step (TAP output).

Usage: check_torch_gpu_bench.py

For every encoder: one JSON object per line and configuration (each mode,
f32, forward and train), the config's model keys and batch taken from
data/configs/listops-ENCODER.ini, eager always timed, every other mode
either timed or reported unavailable with its reason (Debian's torch 1.13
has no SDPA, FlexAttention or torch.compile), never failing; where a variant
runs (torch 2.x), its f32 logits equal eager's; and bench/gpu/gpu_table.py's
row for the training step divides the best f32 time by ours. Nothing here reads a time
beyond its presence. Without torch the test reports SKIP.
"""
import contextlib
import io
import json
import math
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from tap_py import ok, plan  # noqa: E402
try:
    import torch  # noqa: F401
    sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
    import gpu_table
    import torch_gpu
except ImportError as e:
    torch_gpu = None
    import_error = e

# f32 logits of one model computed two ways (eager against SDPA, FlexAttention
# or compiled kernels): sums of a few hundred products of values near 1, so
# differences stay near 1e-6; 1e-4 leaves room and still catches a wrong mask.
DIFF_BOUND = 1e-4
# 128 tokens: two BLRP segments of 100, eight LS windows of 16, and a second
# MAELRE block short enough (32 tokens) to attend by dot products.
SEQ, BATCH = 128, 2

def check_encoder(enc):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        torch_gpu.main(["--device", "cpu", "--encoder", enc, "--seq", str(SEQ), "--batch", str(BATCH),
                        "--steps", "1", "--warmup", "0", "--precisions", "f32"])
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    want = {(m, "f32", p) for m in torch_gpu.MODES for p in ("forward", "train")}
    got = [(r["mode"], r["precision"], r["pass"]) for r in rows]
    ok(sorted(got) == sorted(want), f"{enc}: one JSON object per configuration ({len(rows)} of {len(want)})")
    ok(all(r["encoder"] == enc and r["seq"] == SEQ and r["batch"] == BATCH and
           r["config"] == f"data/configs/listops-{enc}.ini" for r in rows),
       f"{enc}: every object names the encoder, its config, the length and the batch")
    bad = []
    for r in rows:
        tag = f"{r['mode']} {r['pass']}"
        if r.get("available") is False:
            if not r.get("reason") or r["mode"] == "eager":
                bad.append(f"{tag}: unavailable without a reason, or eager unavailable")
        elif "error" in r:
            bad.append(f"{tag}: {r['error']}")
        elif not (isinstance(r.get("step_s_median"), float) and math.isfinite(r["step_s_median"])
                  and r["step_s_median"] > 0):
            bad.append(f"{tag}: no step time")
        elif r["mode"] != "eager" and r["pass"] == "forward" and not r.get("max_abs_diff_vs_eager", 1) <= DIFF_BOUND:
            bad.append(f"{tag}: logits differ from eager's by {r.get('max_abs_diff_vs_eager')}")
    if not ok(not bad, f"{enc}: eager timed; every other mode timed with eager's logits or unavailable with a reason"):
        print("# " + "\n# ".join(bad))
    check_table(enc, out.getvalue())


def check_table(enc, lines):
    """gpu_table.py's row for the training step: the best f32 PyTorch time
    over ours, ours here an invented 2.5 s (a step as `bench --json` prints it)."""
    ours = json.dumps({"encoder": enc, "seq": SEQ, "batch": BATCH, "step_s_median": 2.5,
                       "inference_batch_s_median": 1.0, "params": 1})
    with tempfile.TemporaryDirectory(prefix="rf_gpu_table.") as tmp:
        for name, text in (("torch.jsonl", lines), ("ours.json", ours + "\n")):
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        table = io.StringIO()
        with contextlib.redirect_stdout(table):
            gpu_table.main([os.path.join(tmp, "torch.jsonl"), os.path.join(tmp, "ours.json")])
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:4]): line
            for line in table.getvalue().splitlines() if line.startswith(f"| {enc} ")}
    times = [r["step_s_median"] for r in map(json.loads, lines.splitlines())
             if r["pass"] == "train" and r["precision"] == "f32" and "step_s_median" in r]
    want = f"{min(times) / 2.5:.2f}x"
    row = rows.get((enc, str(SEQ), str(BATCH), "train"), "")
    ok(row.split("|")[10].strip() == want if row else False,
       f"{enc}: the table's training-step row gives the best f32 PyTorch time over ours ({want})")


def check_settings():
    """The config's keys reach the model: LS's 2 heads, window 16, rank 2, CLS pooling."""
    cfg, batch, differs = torch_gpu.config_from_ini(os.path.join(ROOT, "data/configs/listops-ls.ini"), "ls", SEQ)
    ok((cfg["heads"], cfg["window"], cfg["rank"], cfg["pool"], batch) == (2, 16, 2, "cls", 32) and not differs,
       "listops-ls.ini's model keys and batch become the PyTorch model's")
    _, _, differs = torch_gpu.config_from_ini(os.path.join(ROOT, "data/configs/listops-blrp.ini"), "blrp", SEQ)
    ok(len(differs) == 2, f"listops-blrp.ini: the two options PyTorch does not mirror are named ({differs})")


def main():
    if torch_gpu is None:
        print(f"ok 1 - bench/gpu/torch_gpu.py # SKIP cannot import torch ({import_error})")
        print("1..1")
        return 0
    torch.set_num_threads(1)
    check_settings()
    for enc in torch_gpu.ENCODERS:
        check_encoder(enc)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
