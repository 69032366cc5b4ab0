#!/usr/bin/env bash
# Mutation smoke test (issue 18 item 9): put deliberate bugs into the engine
# one at a time and check that the test suite catches every one.
#
#   tests/mutate.sh [options]          (or ./setup.sh mutate [options])
#
# The tree under test is copied into a scratch folder (`git archive` of a
# revision, HEAD by default), so the real tree is never touched. The copy is
# built once (-Dcuda=disabled -Dgui=disabled: the engine's tests need
# neither) and the suites run once unmutated: they must pass, or nothing
# can be concluded. Then each mutation below is an exact text substitution
# in one file; the old text must occur exactly once (so a mutation cannot
# silently become a no-op when the code changes: the script stops before
# building anything). For each: apply, rebuild (ninja, only the targets of
# the chosen suites), run the suites, record which tests went red, restore
# the file. A mutant that does not compile stops the script: it is a broken
# mutation, not a caught one.
#
# Prints a table (mutation, file, caught by which tests and how many of
# their TAP checks failed) and exits 0 when every mutation was caught,
# 1 when one survived, 2 on a usage or set-up error (pattern not found,
# build failed, the unmutated suites red).
#
# Options:
#   --source DIR     tree to test (default: the repository this script is in)
#   --rev REV        revision to copy (default HEAD)
#   --worktree       copy the working tree instead (tracked and untracked,
#                    not ignored files): test uncommitted changes
#   --suite NAME     run this suite (repeatable; replaces the default
#                    grad, mechanisms, engine)
#   --all            every suite that needs no display: grad mechanisms
#                    engine cuda data app ui (about 2 min a mutation instead
#                    of 40 s; data's throughput check fails on a loaded machine)
#   --only ID        run only this mutation (repeatable); --list shows the IDs
#   --list           list the mutations and exit
#   --num-processes N   tests in parallel (default: the number of CPUs)
#   --keep           keep the scratch folder (build, logs) and print its path
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src=$here
rev=HEAD
use_worktree=0
keep=0
list=0
suites=()
only=()
jobs=$(nproc 2>/dev/null || echo 2)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --source) src=$(cd "$2" && pwd); shift 2 ;;
    --rev) rev=$2; shift 2 ;;
    --worktree) use_worktree=1; shift ;;
    --suite) suites+=("$2"); shift 2 ;;
    --all) suites+=(grad mechanisms engine cuda data app ui); shift ;;
    --only) only+=("$2"); shift 2 ;;
    --list) list=1; shift ;;
    --num-processes) jobs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) usage ;;
    *) echo "mutate: unknown option $1" >&2; usage ;;
    esac
done
[ ${#suites[@]} -gt 0 ] || suites=(grad mechanisms engine)

# ---- the mutations: ID, description, file, old text, new text ----------
ids=() descs=() files=() olds=() news=()
mutation() { ids+=("$1"); descs+=("$2"); files+=("$3"); olds+=("$4"); news+=("$5"); }

# The issue's six.
mutation residual "the attention residual dropped (x = h)" core/encoders/prenorm.c \
$'            h = rf_dropout(g, h, cfg->model.dropout);
        x = rf_add(g, x, h);

        snprintf(name, sizeof name, "layer%d.norm2", l);' \
$'            h = rf_dropout(g, h, cfg->model.dropout);
        x = h;

        snprintf(name, sizeof name, "layer%d.norm2", l);'

mutation ln-gain "LayerNorm's gain ignored in the forward kernel" core/cpu/norm.c \
'                y[j] = (xr[j] - m) * s * gamma[j] + beta[j];' \
'                y[j] = (xr[j] - m) * s + beta[j];'

mutation pool-shift "masked mean pooling one position late (tokens 1..n, not 0..n-1)" core/cpu/reduce.c \
'            w[t] = m[t] != 0.0f ? inv : 0.0f;' \
'            w[t] = t > 0 && m[t - 1] != 0.0f ? inv : 0.0f;'

mutation grad-zero "attention's key gradient zeroed (dK never accumulated)" core/cpu/attention.c \
$'        if (c->gk != NULL)
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, cols, dk, rows, a->scale, ds, KB, a->q + oq, D,' \
$'        if (c->gk != NULL && 0)
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, cols, dk, rows, a->scale, ds, KB, a->q + oq, D,'

mutation mask "attention's key mask ignored" core/cpu/attention.c \
$'    if (a->mask == NULL)
        return;' \
$'    return;'

mutation scale "full attention's scale squared (1/dk, not 1/sqrt(dk))" core/encoders/full.c \
'rf_attention(g, q, k, v, e->mask, heads, 1.0f / sqrtf((float)(d / heads)), e->cfg->model.attn_dropout);' \
'rf_attention(g, q, k, v, e->mask, heads, 1.0f / (float)(d / heads), e->cfg->model.attn_dropout);'

# Three more.
mutation adamw-bias "AdamW's bias correction dropped" core/optim.c \
'            float mhat = m[i] / a->c1, vhat = v[i] / a->c2;' \
'            float mhat = m[i], vhat = v[i];'

mutation dropout-scale "dropout scales kept elements by 1 - p, not 1 / (1 - p)" core/cpu/dropout.c \
'p, active ? 1.0f / (1.0f - p) : 1.0f};' \
'p, active ? 1.0f - p : 1.0f};'

mutation clip-up "gradient clipping also scales norms below the limit up to it" core/optim.c \
'    if (max_norm <= 0 || !(norm > max_norm))' \
'    if (max_norm <= 0)'

if [ $list -eq 1 ]; then
    for i in "${!ids[@]}"; do printf '%-14s %-26s %s\n' "${ids[$i]}" "${files[$i]}" "${descs[$i]}"; done
    exit 0
fi
sel=()
for i in "${!ids[@]}"; do
    if [ ${#only[@]} -eq 0 ]; then sel+=("$i"); continue; fi
    for o in "${only[@]}"; do [ "$o" = "${ids[$i]}" ] && sel+=("$i"); done
done
if [ ${#only[@]} -gt 0 ] && [ ${#sel[@]} -ne ${#only[@]} ]; then
    echo "mutate: unknown mutation among: ${only[*]} (see --list)" >&2
    exit 2
fi

# ---- helpers ------------------------------------------------------------
# substitute FILE: replace $MUT_OLD by $MUT_NEW; the old text must occur
# exactly once (with --check only count).
substitute() {
    /usr/bin/python3 - "$@" <<'EOF'
import os, sys
path, check = sys.argv[1], len(sys.argv) > 2
old, new = os.environ["MUT_OLD"], os.environ["MUT_NEW"]
try:
    text = open(path, encoding="utf-8").read()
except OSError as e:
    sys.exit(f"mutate: {e}")
n = text.count(old)
if n != 1:
    sys.exit(f"mutate: {path}: the text to replace occurs {n} times, not once:\n{old}")
if not check:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))
EOF
}

# red LOG.json: the tests that did not pass, "name (k failed checks)", or
# nothing when all passed.
red_tests() {
    /usr/bin/python3 - "$1" <<'EOF'
import json, sys
out = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    name = t["name"].split(" / ")[-1]
    bad = sum(1 for l in (t.get("stdout") or "").splitlines() if l.startswith("not ok"))
    if bad:
        out.append(f"{name} ({bad})")
    else:
        out.append(f"{name} ({t['result'].lower()})")
print(", ".join(out))
EOF
}

elapsed() { local s=$(( $(date +%s) - $1 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# ---- the scratch copy ---------------------------------------------------
start=$(date +%s)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rf-mutate.XXXXXX")
cleanup() {
    if [ $keep -eq 1 ]; then echo "mutate: kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
tree=$scratch/src build=$scratch/build logs=$scratch/logs
mkdir -p "$tree" "$logs"
if [ $use_worktree -eq 1 ]; then
    git -C "$src" ls-files -z -c -o --exclude-standard |
        (cd "$src" && /usr/bin/python3 -c '
import os, sys
names = [n for n in sys.stdin.buffer.read().split(b"\0") if n and os.path.isfile(n)]
sys.stdout.buffer.write(b"\0".join(names))' | tar --null -T - -cf -) | tar -x -C "$tree"
    what="working tree of $src"
else
    git -C "$src" archive --format=tar "$rev" | tar -x -C "$tree"
    what="$src at $rev ($(git -C "$src" rev-parse --short "$rev"))"
fi
echo "mutate: testing $what in $scratch"

# Every pattern must match before anything is built.
for i in "${sel[@]}"; do
    MUT_OLD=${olds[$i]} MUT_NEW=${news[$i]} substitute "$tree/${files[$i]}" --check || exit 2
done

suite_args=()
for s in "${suites[@]}"; do suite_args+=(--suite "$s"); done

echo "mutate: building (plain, -Dcuda=disabled -Dgui=disabled)"
if ! meson setup "$build" "$tree" -Dcuda=disabled -Dgui=disabled >"$logs/setup.log" 2>&1; then
    tail -n 30 "$logs/setup.log" >&2
    exit 2
fi
# Only the targets the chosen suites' tests need (their dependencies, their
# programs and arguments inside the build folder, relative ones included).
mapfile -t targets < <(meson introspect --tests --targets "$build" | /usr/bin/python3 -c '
import json, os, sys
build, suites = os.path.realpath(sys.argv[1]), set(sys.argv[2:])
info = json.load(sys.stdin)
files = {t["id"]: t["filename"] for t in info["targets"]}
seen = set()
for t in info["tests"]:
    if not suites & {s.split(":")[-1] for s in t["suite"]}:
        continue
    paths = [f for d in t.get("depends", []) for f in files.get(d, [])]
    paths += [p if os.path.isabs(p) else os.path.join(build, p) for p in t["cmd"]]
    for p in paths:
        p = os.path.realpath(p)
        if p.startswith(build + os.sep) and p not in seen:
            seen.add(p)
            print(os.path.relpath(p, build))
' "$build" "${suites[@]}")
if [ ${#targets[@]} -eq 0 ]; then
    echo "mutate: no tests in suites ${suites[*]}" >&2
    exit 2
fi
if ! ninja -C "$build" "${targets[@]}" >"$logs/build.log" 2>&1; then
    tail -n 30 "$logs/build.log" >&2
    exit 2
fi
echo "mutate: built in $(elapsed "$start")"

run_suites() {   # LOGBASE
    meson test -C "$build" --no-rebuild --num-processes "$jobs" "${suite_args[@]}" --logbase "$1" \
        >"$logs/$1.txt" 2>&1
}

t0=$(date +%s)
echo "mutate: suites ${suites[*]} on the unmutated copy"
if ! run_suites baseline; then
    echo "mutate: the unmutated copy fails: $(red_tests "$build/meson-logs/baseline.json")" >&2
    echo "mutate: fix that first; no mutation can be judged (log: $logs/baseline.txt)" >&2
    keep=1
    exit 2
fi
echo "mutate: baseline passed in $(elapsed "$t0")"

# ---- the mutations ------------------------------------------------------
results=() caught_by=() times=()
survived=0
for i in "${sel[@]}"; do
    id=${ids[$i]} file=${files[$i]}
    t0=$(date +%s)
    cp "$tree/$file" "$scratch/orig"
    MUT_OLD=${olds[$i]} MUT_NEW=${news[$i]} substitute "$tree/$file" || exit 2
    if ! ninja -C "$build" "${targets[@]}" >"$logs/build-$id.log" 2>&1; then
        echo "mutate: $id: the mutant does not build (a broken mutation, not a caught one):" >&2
        tail -n 30 "$logs/build-$id.log" >&2
        exit 2
    fi
    if run_suites "mut-$id"; then
        results+=("SURVIVED")
        caught_by+=("-")
        survived=$((survived + 1))
    else
        results+=("caught")
        caught_by+=("$(red_tests "$build/meson-logs/mut-$id.json")")
    fi
    # restore without keeping the old time stamp, so ninja rebuilds the file
    cat "$scratch/orig" >"$tree/$file"
    times+=("$(elapsed "$t0")")
    printf 'mutate: %-14s %-8s %s  [%s]\n' "$id" "${results[-1]}" "${caught_by[-1]}" "${times[-1]}"
done

# ---- the table ----------------------------------------------------------
echo
echo "Mutations of $what; suites: ${suites[*]}"
echo "(caught by: the tests that went red, with their failed TAP checks)"
echo
echo "| mutation | file | result | caught by | time |"
echo "|---|---|---|---|---|"
k=0
for i in "${sel[@]}"; do
    printf '| %s: %s | `%s` | %s | %s | %s |\n' "${ids[$i]}" "${descs[$i]}" "${files[$i]}" \
        "${results[$k]}" "${caught_by[$k]}" "${times[$k]}"
    k=$((k + 1))
done
echo
echo "mutate: ${#sel[@]} mutations, $survived survived; total $(elapsed "$start")"
if [ $survived -gt 0 ]; then
    keep=1
    exit 1
fi
exit 0
