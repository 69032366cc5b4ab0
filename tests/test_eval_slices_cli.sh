#!/usr/bin/env bash
# `rangefinder eval --slices` end to end (TAP) on tiny trained checkpoints
# (ListOps, and an image folder of two classes): the JSON is consistent
# with itself and with plain eval (the matrix sums to the split, its trace
# over the total is eval's accuracy, precision, recall and F1 follow from
# the matrix, every slice partitions the split), the operator slice agrees
# with --by-first-token (another code path), --csv holds the same numbers,
# and bad options fail with one clear line. The numbers themselves are
# checked against a hand-counted case in test_eval_slices.c.
#
#   tests/test_eval_slices_cli.sh PATH/TO/rangefinder [SCRATCH_PARENT_DIR]
set -u

rf=$(realpath "$1")
tmp=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/rf-slices.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
. "$(dirname "$0")/cli_tap.sh"

# pycheck NAME CODE FILE...: python3 CODE with `j` the JSON of the first
# FILE's last line and `files` all the FILEs.
pycheck() {
    local name=$1 code=$2
    shift 2
    last_cmd="python3 check"
    "$py" -c "import csv, json, sys; files = sys.argv[1:]; j = json.loads(open(files[0]).read().splitlines()[-1]); $code" \
        "$@" >"$tmp/out" 2>"$tmp/err"
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

run eval --checkpoint "$ckpt" --json
cp "$tmp/out" "$tmp/plain.json"
run eval --checkpoint "$ckpt" --slices --json --csv "$tmp/slices.csv"
expect_rc 0 "eval --slices --json --csv exits 0"
cp "$tmp/out" "$tmp/slices.json"

# the consistency every answer must have, whatever the model learnt
consistent='
n = j["samples"]; m = j["confusion"]; c = len(m)
assert all(len(r) == c for r in m), m
assert sum(map(sum, m)) == n, (sum(map(sum, m)), n)
trace = sum(m[k][k] for k in range(c))
assert abs(trace / n - j["accuracy"]) < 1e-5, (trace, n, j["accuracy"])   # JSON prints 6 digits
for k, pc in enumerate(j["per_class"]):
    col = sum(m[i][k] for i in range(c)); row = sum(m[k])
    p = m[k][k] / col if col else 0; r = m[k][k] / row if row else 0; f = 2 * p * r / (p + r) if p + r else 0
    assert pc["samples"] == row and abs(pc["precision"] - p) < 1e-5 and abs(pc["recall"] - r) < 1e-5 and abs(pc["f1"] - f) < 1e-5, (k, pc, p, r, f)
for kind, groups in j["slices"].items():
    assert sum(g["samples"] for g in groups) == n and sum(g["right"] for g in groups) == trace, (kind, groups)
    assert all(abs(g["accuracy"] - g["right"] / g["samples"]) < 1e-5 for g in groups), groups
'
pycheck "the matrix sums to the 24 test samples; its trace over the total is the accuracy; P/R/F1 follow from it; each slice partitions the split" \
    "assert j['samples'] == 24 and len(j['confusion']) == 10, j; $consistent" "$tmp/slices.json"
pycheck "--slices leaves plain eval's accuracy and loss as they were" \
    'p = json.loads(open(files[1]).read()); assert p["accuracy"] == j["accuracy"] and p["loss"] == j["loss"], (p, j)' \
    "$tmp/slices.json" "$tmp/plain.json"
pycheck "ListOps gets the operator, depth, length and concat slices (K=1), no class slice" \
    's = j["slices"]; assert list(s) == ["operator", "depth", "length", "concat"], list(s); c = s["concat"][0]; assert len(s["concat"]) == 1 and c["group"] == "K=1" and c["samples"] == 24 and c["accuracy"] == j["accuracy"], s["concat"]; assert {g["group"] for g in s["operator"]} <= {"[MIN", "[MAX", "[MED", "[SM", "digit"}; assert all(g["group"].startswith("depth ") for g in s["depth"])' \
    "$tmp/slices.json"
pycheck "each group carries the baselines on its own samples; weighted by samples they give eval's baselines of the split" \
    'n = j["samples"]
for kind, gs in j["slices"].items():
    for key in ("baseline_majority", "baseline_first_token"):
        assert abs(sum(g[key] * g["samples"] for g in gs) / n - j[key]) < 1e-5, (kind, key, gs, j[key])' \
    "$tmp/slices.json"
pycheck "length buckets are powers of two, each (2^(b-1), 2^b], within data.max_len" \
    'import re; b = [tuple(map(int, re.fullmatch(r"(\d+)-(\d+)", g["group"]).groups())) for g in j["slices"]["length"]]; assert all(hi & (hi - 1) == 0 and lo == hi // 2 + 1 and hi <= 64 for lo, hi in b) and b == sorted(b), b' \
    "$tmp/slices.json"

run eval --checkpoint "$ckpt" --by-first-token --json
cp "$tmp/out" "$tmp/first.json"
pycheck "the operator slice agrees with --by-first-token: the same groups, samples and accuracies" \
    'f = {g["token"]: (g["samples"], round(g["accuracy"], 6)) for g in json.loads(open(files[1]).read())["by_first_token"]}; s = {g["group"]: (g["samples"], round(g["accuracy"], 6)) for g in j["slices"]["operator"]}; assert f == s, (f, s)' \
    "$tmp/slices.json" "$tmp/first.json"
pycheck "the CSV holds the JSON's matrix, per-class numbers and slices" \
    'rows = list(csv.reader(open(files[1]))); assert rows[0] == ["table", "row", "column", "value"], rows[0]; v = {(t, r, c): float(x) for t, r, c, x in rows[1:]}; assert all(v[("confusion", str(i), str(k))] == j["confusion"][i][k] for i in range(10) for k in range(10)); assert all(abs(v[("class", pc["class"], key)] - pc[key]) < 1e-6 for pc in j["per_class"] for key in ("samples", "precision", "recall", "f1")); assert all(v[("slice:" + kind, g["group"], "samples")] == g["samples"] and v[("slice:" + kind, g["group"], "right")] == g["right"] for kind, gs in j["slices"].items() for g in gs); assert all(abs(v[("slice:" + kind, g["group"], "baseline_first_token")] - g["baseline_first_token"]) < 1e-5 for kind, gs in j["slices"].items() for g in gs); assert len(rows) == 1 + 100 + 40 + 5 * sum(map(len, j["slices"].values())), len(rows)' \
    "$tmp/slices.json" "$tmp/slices.csv"

run eval --checkpoint "$ckpt" --slices --split val --set data.concat=2
expect_rc 0 "eval --slices of the val split with data.concat=2 exits 0"
grep -q '^confusion matrix (rows: the label, columns: the model' "$tmp/out" &&
    grep -q '^accuracy by operator (and without the model' "$tmp/out" && grep -qE '^  \[MAX +16 samples  accuracy' "$tmp/out" &&
    grep -qE '^  K=2 +16 samples  accuracy [01]\.[0-9]{3}  without the model [01]\.[0-9]{3}, [01]\.[0-9]{3}$' "$tmp/out"
ok $? "with K=2 the text names K=2 with the baselines, and every sample's outermost operator is the outer [MAX"

# --- an image folder: the class slice ---------------------------------------
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
    for k in range(8):
        png(os.path.join(sys.argv[1], name, "%d.png" % k), base + 3 * k)
PY
run train --config "$tmp/tiny.ini" --set data.task=image_folder --set "data.path=$tmp/pics" --set data.image_size=8 \
    --set data.patch=2 --set data.val_size=2 --set data.test_size=4 --set data.batch=4 --set model.dim=16 \
    --set model.heads=2 --set model.ff=32 --set train.steps=3 --set train.threads=1 --out "$tmp/pics-run"
expect_rc 0 "a tiny image_folder run exits 0"
run eval --checkpoint "$tmp/pics-run/checkpoint.safetensors" --slices --json
expect_rc 0 "eval --slices of an image model exits 0"
cp "$tmp/out" "$tmp/pics.json"
pycheck "an image model gets a class slice named by the folders (each class's accuracy its recall), no ListOps slices" \
    "s = j['slices']; assert list(s) == ['length', 'class', 'concat'], list(s); assert all('baseline_majority' not in g for gs in s.values() for g in gs); assert [g['group'] for g in s['class']] == [pc['class'] for pc in j['per_class'] if pc['samples']] and set(g['group'] for g in s['class']) <= {'dark', 'light'}; assert all(abs(g['accuracy'] - pc['recall']) < 1e-5 for g in s['class'] for pc in j['per_class'] if pc['class'] == g['group']); $consistent" \
    "$tmp/pics.json"

# --- refusals -----------------------------------------------------------------
expect_error 2 "--csv without --slices is a usage error saying what to add" "add --slices" \
    eval --checkpoint "$ckpt" --csv "$tmp/x.csv"
expect_error 1 "a CSV that cannot be written fails naming its path" "$tmp/no/such/folder/x.csv" \
    eval --checkpoint "$ckpt" --slices --csv "$tmp/no/such/folder/x.csv"
[ ! -e "$tmp/x.csv" ]
ok $? "the refused --csv wrote nothing"

tap_end
