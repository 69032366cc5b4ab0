#!/usr/bin/env bash
# `rangefinder inspect --attribution` end to end (TAP) on tiny trained
# checkpoints (ListOps, an image folder, an audio folder): the .npy holds one value per
# position (an image's on its grid) summing to the JSON's sum; integrated
# gradients' completeness error is what the JSON's own numbers give and
# shrinks from 8 to 64 steps; occlusion reports its window; --class picks
# the target; --set train.precision=bf16 runs the passes with bf16 products
# (in f32 on a CPU without bf16); the top positions are named in the data's words; bad options
# fail with one clear line; an audio folder's baseline is what a silent clip
# gives. The numbers themselves are checked against
# finite differences and explicit passes in test_attribution.c.
#
#   tests/test_attribution_cli.sh PATH/TO/rangefinder [SCRATCH_PARENT_DIR]
set -u

rf=$(realpath "$1")
tmp=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/rf-attribution.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
. "$(dirname "$0")/cli_tap.sh"

# pycheck NAME CODE JSON NPY...: python3 CODE with `j` the JSON file's last
# line and `a` the first .npy among the others as (shape, values), `npys`
# all of them.
pycheck() {
    local name=$1 code=$2
    shift 2
    last_cmd="python3 check"
    "$py" -c '
import ast, json, struct, sys
from array import array
def npy(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
    n = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + n].decode())
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    v = array("f"); v.frombytes(b[10 + n:])
    return h["shape"], list(v)
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
npys = [npy(p) for p in sys.argv[2:] if p.endswith(".npy")]
a = npys[0] if npys else None
'"$code" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok $rc "$name"
}

# expect_error CODE NAME WANT ARGS...: exit CODE, one stderr line holding WANT.
expect_error() {
    local code=$1 name=$2 want=$3
    shift 3
    run "$@"
    [ "$rc" -eq "$code" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$want" "$tmp/err"
    ok $? "$name"
}

printf '[data]\ntask = listops\n\n[train]\nseed = 3\n' >"$tmp/tiny.ini"
run train --config "$tmp/tiny.ini" --set data.max_len=60 --set data.min_len=10 --set data.train_size=64 \
    --set data.val_size=16 --set data.test_size=24 --set data.batch=4 --set model.dim=16 --set model.heads=2 \
    --set model.ff=32 --set train.steps=6 --set train.eval_every=3 --set train.checkpoint_every=3 \
    --set train.threads=1 --out "$tmp/run"
expect_rc 0 "a tiny ListOps run exits 0"
ckpt=$tmp/run/checkpoint.safetensors

for steps in 8 64; do
    run inspect --checkpoint "$ckpt" --sample 2 --attribution ig --steps $steps --out "$tmp/ig$steps.npy"
    expect_rc 0 "inspect --attribution ig --steps $steps exits 0"
    cp "$tmp/out" "$tmp/ig$steps.json"
done
pycheck "ig: the .npy holds one value per position, summing to the JSON's sum; the completeness error is |sum - (F(x) - F(baseline))|, within 1% at 64 steps" \
    'assert j["method"] == "ig" and j["steps"] == 64 and j["baseline"] == "padding" and a[0] == (j["positions"],), (j, a[0])
assert abs(sum(a[1]) - j["sum"]) < 1e-4, (sum(a[1]), j["sum"])
gap = j["f_input"] - j["f_baseline"]
assert abs(abs(j["sum"] - gap) - j["completeness_error"]) < 1e-5 and j["completeness_error"] <= 0.01 * abs(gap), j' \
    "$tmp/ig64.json" "$tmp/ig64.npy"
pycheck "ig: the error shrinks from 8 to 64 steps, on the same sample, target and F values" \
    'k = json.loads(open(sys.argv[2]).read()); assert k["completeness_error"] > j["completeness_error"] and k["target"] == j["target"] and k["f_input"] == j["f_input"], (k, j)' \
    "$tmp/ig64.json" "$tmp/ig8.json"
pycheck "ig: the top positions are the largest by size, named by their ListOps tokens" \
    'vals = sorted((abs(v) for v in a[1]), reverse=True)[:10]
assert [round(abs(t["value"]), 4) for t in j["top"]] == [round(v, 4) for v in vals], (j["top"], vals)
assert all(abs(a[1][t["position"]] - t["value"]) < 1e-5 for t in j["top"])
assert all(t["words"] in ["[MAX", "[MIN", "[MED", "[SM", "]"] + [str(d) for d in range(10)] for t in j["top"]), j["top"]' \
    "$tmp/ig64.json" "$tmp/ig64.npy"

# the passes run in train.precision: bf16 products where the CPU has them,
# in f32 where it has not (a bf16 run's checkpoint is still inspected)
if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && [ "${RF_BF16:-}" != off ]; then
    run inspect --checkpoint "$ckpt" --sample 2 --attribution ig --steps 64 --set train.precision=bf16 \
        --out "$tmp/ig-bf16.npy"
    expect_rc 0 "inspect --attribution ig --set train.precision=bf16 exits 0"
    cp "$tmp/out" "$tmp/ig-bf16.json"
    pycheck "ig in bf16: the same target, F(x) near f32's but not equal (bf16 products ran), complete within 2%" \
        'k = json.loads(open(sys.argv[2]).read()); gap = j["f_input"] - j["f_baseline"]
assert j["target"] == k["target"] and j["f_input"] != k["f_input"] and abs(j["f_input"] - k["f_input"]) <= 0.05 * abs(k["f_input"]) + 1e-3, (j, k)
assert j["completeness_error"] <= 0.02 * abs(gap), j' "$tmp/ig-bf16.json" "$tmp/ig64.json"
else
    run inspect --checkpoint "$ckpt" --sample 2 --attribution ig --steps 64 --set train.precision=bf16 \
        --out "$tmp/ig-bf16.npy"
    expect_rc 0 "inspect --attribution ig --set train.precision=bf16 exits 0 on a CPU without bf16"
    cp "$tmp/out" "$tmp/ig-bf16.json"
    pycheck "ig in bf16 on a CPU without bf16 runs in f32: the same F(x), F(baseline) and sum" \
        'k = json.loads(open(sys.argv[2]).read())
assert all(j[key] == k[key] for key in ("target", "f_input", "f_baseline", "sum")), (j, k)' \
        "$tmp/ig-bf16.json" "$tmp/ig64.json"
fi

run inspect --checkpoint "$ckpt" --text '[MAX 2 9 [MIN 4 7 ] 0 ]' --attribution occlusion --window 3 --class 4 \
    --out "$tmp/occ.npy"
expect_rc 0 "inspect --attribution occlusion of a --text input exits 0"
cp "$tmp/out" "$tmp/occ.json"
pycheck "occlusion: windows of 3 every 3 give each window one value over its 9 tokens; the target is --class" \
    'assert j["window"] == 3 and j["stride"] == 3 and j["target"] == 4 and j["positions"] == 9 and a[0] == (9,), j
v = a[1]; assert all(v[3 * w] == v[3 * w + 1] == v[3 * w + 2] for w in range(3)), v
assert "input" in j and "sample" not in j, j' \
    "$tmp/occ.json" "$tmp/occ.npy"

run inspect --checkpoint "$ckpt" --sample 2 --attribution grad-input --out "$tmp/gi.npy"
expect_rc 0 "inspect --attribution grad-input exits 0"
cp "$tmp/out" "$tmp/gi.json"
pycheck "grad-input: same target and F(x) as ig for the sample, the .npy sums to the JSON's sum, no completeness, no F(baseline) (the input's row alone)" \
    'k = json.loads(open(sys.argv[3]).read()); assert j["target"] == k["target"] and j["f_input"] == k["f_input"] and "completeness_error" not in j and j["f_baseline"] is None, (j, k)
assert abs(sum(a[1]) - j["sum"]) < 1e-4' "$tmp/gi.json" "$tmp/gi.npy" "$tmp/ig64.json"

expect_error 2 "an unknown method is refused" "--attribution takes grad, grad-input, ig or occlusion" \
    inspect --checkpoint "$ckpt" --attribution saliency
expect_error 2 "--attribution with --probe is refused" "one of --list, --probe NAME and --attribution METHOD" \
    inspect --checkpoint "$ckpt" --attribution ig --probe logits
expect_error 2 "--steps 0 is refused" "--steps and --window must be 1 or more" \
    inspect --checkpoint "$ckpt" --attribution ig --steps 0
expect_error 1 "a class out of range is refused" "class 12 is out of range: the model has classes 0..9" \
    inspect --checkpoint "$ckpt" --attribution grad --class 12 --out "$tmp/x.npy"
expect_error 2 "token data take no --baseline" "--baseline mean: token inputs take the padding token" \
    inspect --checkpoint "$ckpt" --attribution ig --baseline mean --out "$tmp/x.npy"
[ ! -e "$tmp/x.npy" ]
ok $? "refused requests write no file"

# --- an image folder: values on the picture's grid, the mean baseline ------
"$py" - "$tmp/pics" <<'PY'
import os, struct, sys, zlib
def png(path, level):
    rows = b"".join(b"\0" + bytes((level + 9 * x + 5 * y) % 256 for x in range(8) for c in range(3)) for y in range(8))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
for name, base in (("dark", 10), ("light", 150)):
    os.makedirs(os.path.join(sys.argv[1], name))
    for i in range(8):
        png(os.path.join(sys.argv[1], name, "%d.png" % i), base + 7 * i)
PY
run train --config "$tmp/tiny.ini" --set data.task=image_folder --set "data.path=$tmp/pics" --set data.image_size=8 \
    --set data.patch=2 --set data.val_size=2 --set data.test_size=4 --set data.batch=4 --set model.dim=16 \
    --set model.heads=2 --set model.ff=32 --set train.steps=3 --set train.threads=1 --out "$tmp/pics-run"
expect_rc 0 "a tiny image_folder run exits 0"
pics=$tmp/pics-run/checkpoint.safetensors
run inspect --checkpoint "$pics" --sample 1 --attribution ig --steps 64 --out "$tmp/pic.npy"
expect_rc 0 "ig of a picture exits 0"
cp "$tmp/out" "$tmp/pic.json"
run inspect --checkpoint "$pics" --sample 1 --attribution ig --steps 64 --baseline mean --out "$tmp/pic-mean.npy"
expect_rc 0 "ig of a picture from the mean image exits 0"
cp "$tmp/out" "$tmp/pic-mean.json"
pycheck "a picture's attribution lies on its 4 x 4 grid of patches, from black by default, complete within 1%" \
    'assert a[0] == (4, 4) and j["positions"] == 16 and j["baseline"] == "zero", (a[0], j)
assert j["completeness_error"] <= 0.01 * abs(j["f_input"] - j["f_baseline"]), j
assert all(t["words"].startswith("rows ") for t in j["top"]), j["top"]' "$tmp/pic.json" "$tmp/pic.npy"
pycheck "--baseline mean starts from another picture: another F(baseline), the same F(x)" \
    'k = json.loads(open(sys.argv[2]).read()); assert k["baseline"] == "mean" and k["f_input"] == j["f_input"] and k["f_baseline"] != j["f_baseline"], (j, k)' \
    "$tmp/pic.json" "$tmp/pic-mean.json"
expect_error 2 "silence is refused for pictures" "--baseline silence: silence is an audio folder's baseline" \
    inspect --checkpoint "$pics" --attribution ig --baseline silence --out "$tmp/x.npy"

# --- an audio folder: silence is its baseline, the log-mel of a silent clip --
"$py" - "$tmp/clips" <<'PY'
import math, os, struct, sys, wave
def clip(path, hz, amplitude):
    with wave.open(path, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes(b"".join(struct.pack("<h", int(amplitude * math.sin(2 * math.pi * hz * i / 16000)))
                               for i in range(4000)))
for name, hz in (("low", 300), ("high", 2500)):
    os.makedirs(os.path.join(sys.argv[1], name))
    for i in range(6):
        clip(os.path.join(sys.argv[1], name, "%d.wav" % i), hz + 40 * i, 8000)
clip(os.path.join(os.path.dirname(sys.argv[1]), "silent.wav"), 0, 0)
PY
run train --config "$tmp/tiny.ini" --set data.task=audio_folder --set "data.path=$tmp/clips" --set data.mel_bins=16 \
    --set data.max_frames=32 --set data.val_size=2 --set data.test_size=2 --set data.batch=4 --set model.dim=16 \
    --set model.heads=2 --set model.ff=32 --set train.steps=3 --set train.threads=1 --out "$tmp/clips-run"
expect_rc 0 "a tiny audio_folder run exits 0"
clips=$tmp/clips-run/checkpoint.safetensors
run inspect --checkpoint "$clips" --sample 0 --attribution ig --steps 64 --class 1 --out "$tmp/clip.npy"
expect_rc 0 "ig of a clip exits 0"
cp "$tmp/out" "$tmp/clip.json"
run inspect --checkpoint "$clips" --input "$tmp/silent.wav" --attribution grad --class 1 --out "$tmp/silent.npy"
expect_rc 0 "the gradient of a silent clip exits 0"
cp "$tmp/out" "$tmp/silent.json"
pycheck "a clip's baseline is silence: F(baseline) is the model's logit for a silent clip of its length; one value per frame" \
    'k = json.loads(open(sys.argv[2]).read()); assert j["baseline"] == "silence" and a[0] == (j["positions"],) and k["positions"] == j["positions"], (j, k, a[0])
assert abs(k["f_input"] - j["f_baseline"]) < 1e-4 * max(1, abs(j["f_baseline"])), (k["f_input"], j["f_baseline"])
assert all(t["words"].endswith(" s") for t in j["top"]), j["top"]' "$tmp/clip.json" "$tmp/silent.json" "$tmp/clip.npy"

tap_end
