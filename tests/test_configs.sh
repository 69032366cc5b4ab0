#!/usr/bin/env bash
# Every shipped config in data/configs/ parses, validates and plans a model
# (the memory planner builds the whole graph; nothing is trained). A config
# whose data set is made by the user (data.path, e.g. spoken digits) and is
# not there is checked with `config` (parse and validate) instead. A BLRP
# config must say model.pos = none (SPEC §3: positions only inside each
# segment). Each check wants exit 0; on failure it shows the exit status and
# the output.
# Usage: test_configs.sh RANGEFINDER CONFIG_DIR
bin=$1
dir=$2
n=0
fail=0

# report PASSED NAME: one TAP line; on failure, the last command's exit and output.
report() {
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        echo "# exit $rc"
        sed 's/^/# /' <<<"$out"
        fail=1
    fi
}

for cfg in "$dir"/*.ini; do
    n=$((n + 1))
    name=$(basename "$cfg")
    out=$("$bin" config --show --config "$cfg" 2>&1)
    rc=$?
    if grep -qx 'encoder=blrp' <<<"$out"; then
        grep -qx 'pos=none' <<<"$out"
        report $? "$name: BLRP without a position embedding over the whole sequence (model.pos = none, SPEC §3)"
        n=$((n + 1))
    fi
    path=$(sed -n 's/^path *= *//p' "$cfg")
    if [ -n "$path" ] && [ ! -e "$path" ]; then
        out=$("$bin" config --show --config "$cfg" 2>&1)
        rc=$?
        report "$rc" "$name parses and validates ($path not made here, so no plan)"
        continue
    fi
    out=$("$bin" memory --config "$cfg" --seq 256 --json 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] && grep -q '"planned_bytes"' <<<"$out"
    report $? "$name parses and plans a model"
done
echo "1..$n"
exit $fail
