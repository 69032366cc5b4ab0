#!/usr/bin/env bash
# `rangefinder inspect --against` end to end (TAP): two checkpoints of one
# tiny ListOps run (steps 2 and 6) on the same sample. The attribution file
# holds A, B and A - B as [3, positions], A and B each what a plain
# `inspect --attribution` of its checkpoint writes, the third exactly their
# difference; the summary gives both predictions with all class
# probabilities, both completeness errors and the shared range max |A|, |B|;
# a run folder stands for its checkpoint and against itself differs by
# zero; probe maps are stacked the same way; a checkpoint of another data
# task is refused with one sentence naming both files and what differs.
#
#   tests/test_compare_cli.sh PATH/TO/rangefinder
set -u
rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-compare-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
TAP_DETAIL=$tmp/err
py=/usr/bin/python3

# run ARGS...: rangefinder in $tmp; status in $rc, output in $tmp/out, $tmp/err.
run() {
    (cd "$tmp" && exec "$rf" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# check NAME CODE FILE...: python3 CODE with npy(PATH) -> (shape, values)
# and js(PATH) -> the file's last line as JSON; the files are sys.argv[1:].
check() {
    local name=$1 code=$2
    shift 2
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
def js(path):
    return json.loads(open(path).read().splitlines()[-1])
'"$code" "$@" >"$tmp/err" 2>&1
    ok $? "$name"
}

printf '[data]\ntask = listops\n\n[train]\nseed = 3\n' >"$tmp/tiny.ini"
run train --config "$tmp/tiny.ini" --set data.max_len=60 --set data.min_len=10 --set data.train_size=64 \
    --set data.val_size=16 --set data.test_size=24 --set data.batch=4 --set model.dim=16 --set model.heads=2 \
    --set model.ff=32 --set train.steps=2 --set train.threads=1 --out "$tmp/run"
cp "$tmp/run/checkpoint.safetensors" "$tmp/step2.safetensors" 2>/dev/null
run train --resume "$tmp/run" --set train.steps=6
ok $rc "a tiny ListOps run saved at step 2 and resumed to step 6"
step6=$tmp/run/checkpoint.safetensors step2=$tmp/step2.safetensors

run inspect --checkpoint "$step6" --against "$step2" --sample 2 --attribution ig --steps 16 --out "$tmp/both.npy"
ok $rc "inspect --attribution ig --against exits 0"
cp "$tmp/out" "$tmp/both.json"
cp "$step6" "$tmp/step6.safetensors"
for k in 6 2; do
    run inspect --checkpoint "$tmp/step$k.safetensors" --sample 2 --attribution ig --steps 16 --class \
        "$("$py" -c 'import json, sys; print(json.loads(open(sys.argv[1]).read())["target"])' "$tmp/both.json")" \
        --out "$tmp/alone$k.npy"
    cp "$tmp/out" "$tmp/alone$k.json"
done 2>/dev/null

check "the file holds A, B and A - B element by element, A and B what each checkpoint gives alone" '
(shape, v), (sa, a), (sb, b) = npy(sys.argv[1]), npy(sys.argv[2]), npy(sys.argv[3])
n = len(a)
assert shape == (3, n) and sa == sb == (n,), (shape, sa, sb)
assert v[:n] == a and v[n:2 * n] == b, "A or B differs from the checkpoint alone"
assert v[2 * n:] == [array("f", [x - y])[0] for x, y in zip(a, b)], "the third row is not A - B"
assert any(x != 0 for x in v[2 * n:]), "steps 2 and 6 gave the same attribution"' \
    "$tmp/both.npy" "$tmp/alone6.npy" "$tmp/alone2.npy"

check "the summary gives both predictions, all class probabilities, both completeness errors, the shared range" '
j, a6, a2 = js(sys.argv[1]), js(sys.argv[3]), js(sys.argv[4])
(shape, v) = npy(sys.argv[2]); n = shape[1]
assert j["a"]["step"] == 6 and j["b"]["step"] == 2 and j["a"]["checkpoint"].endswith("checkpoint.safetensors"), j
for side, alone in ((j["a"], a6), (j["b"], a2)):
    p = side["probabilities"]
    assert len(p) == 10 and abs(sum(p) - 1) < 1e-4 and side["predicted"] == alone["predicted"], side
    assert side["completeness_error"] == alone["completeness_error"] and side["sum"] == alone["sum"], (side, alone)
assert j["a"]["probabilities"] != j["b"]["probabilities"]
rng = max(abs(x) for x in v[:2 * n])
assert abs(j["range"] - rng) <= 1e-6 * rng, (j["range"], rng)' \
    "$tmp/both.json" "$tmp/both.npy" "$tmp/alone6.json" "$tmp/alone2.json"

run inspect --checkpoint "$step2" --against "$step6" --sample 2 --attribution ig --steps 16 --out "$tmp/swapped.npy"
cp "$tmp/out" "$tmp/swapped.json"
check "the other way round: A and B swap, the difference changes sign, the shared range stays" '
(s1, v), (s2, w), j, k = npy(sys.argv[1]), npy(sys.argv[2]), js(sys.argv[3]), js(sys.argv[4])
n = s1[1]
assert w[:n] == v[n:2 * n] and w[n:2 * n] == v[:n] and w[2 * n:] == [-x for x in v[2 * n:]]
assert j["range"] == k["range"] and k["a"]["step"] == 2, (j["range"], k["range"])' \
    "$tmp/both.npy" "$tmp/swapped.npy" "$tmp/both.json" "$tmp/swapped.json"

run inspect --checkpoint "$step6" --against "$tmp/run" --sample 2 --attribution grad --out "$tmp/self.npy"
ok $rc "--against a run folder (its checkpoint) exits 0"
check "a checkpoint against itself differs by zero everywhere" '
(shape, v) = npy(sys.argv[1]); n = shape[1]
assert v[:n] == v[n:2 * n] and all(x == 0 for x in v[2 * n:]) and any(x != 0 for x in v[:n]), v' "$tmp/self.npy"

run inspect --checkpoint "$step6" --against "$step2" --sample 1 --probe layer0.attn.probs --probe logits \
    --out "$tmp/maps"
ok $rc "probes --against exit 0"
grep -qF "$step6: test sample 1 (batch 0, row 1) at step 6: label" "$tmp/out" &&
    grep -qF "$step2: test sample 1 (batch 0, row 1) at step 2: label" "$tmp/out"
ok $? "both predictions are printed" "$tmp/out"
check "each probe map holds A, B and A - B" '
(shape, v) = npy(sys.argv[1]); n = len(v) // 3
assert shape == (3, 2, 60, 60), shape
assert v[2 * n:] == [array("f", [x - y])[0] for x, y in zip(v[:n], v[n:2 * n])] and v[:n] != v[n:2 * n]
assert npy(sys.argv[2])[0] == (3, 10)' "$tmp/maps/layer0.attn.probs.npy" "$tmp/maps/logits.npy"

# a checkpoint of pictures: another task, width, length and classes
"$py" - "$tmp/pics" <<'PY'
import os, struct, sys, zlib
def png(path, level):
    rows = b"".join(b"\0" + bytes((level + 9 * x) % 256 for x in range(4) for c in range(3)) for y in range(4))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
for name, base in (("dark", 10), ("light", 150)):
    os.makedirs(os.path.join(sys.argv[1], name))
    for i in range(4):
        png(os.path.join(sys.argv[1], name, "%d.png" % i), base + 7 * i)
PY
run train --config "$tmp/tiny.ini" --set data.task=image_folder --set "data.path=$tmp/pics" --set data.image_size=4 \
    --set data.patch=2 --set data.val_size=2 --set data.test_size=2 --set data.batch=2 --set model.dim=16 \
    --set model.heads=2 --set model.ff=32 --set train.steps=1 --set train.threads=1 --out "$tmp/pics-run"
ok $rc "a tiny image_folder run exits 0"
run inspect --checkpoint "$step6" --against "$tmp/pics-run" --attribution grad --out "$tmp/x.npy"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -qF "$tmp/pics-run/checkpoint.safetensors cannot be compared with $step6: their models differ in data.task image_folder against listops" "$tmp/err" &&
    grep -qF "classes 2 against 10" "$tmp/err" && [ ! -e "$tmp/x.npy" ]
ok $? "a checkpoint of another task is refused in one sentence naming both and what differs, writing nothing"

tap_end
