#!/usr/bin/env bash
# Every shipped config in data/configs/ parses, validates and plans a model
# (the memory planner builds the whole graph; nothing is trained).
# Usage: test_configs.sh RANGEFINDER CONFIG_DIR
bin=$1
dir=$2
n=0
fail=0
for cfg in "$dir"/*.ini; do
    n=$((n + 1))
    name=$(basename "$cfg")
    if out=$("$bin" memory --config "$cfg" --seq 256 --json 2>&1) && grep -q '"planned_bytes"' <<<"$out"; then
        echo "ok $n - $name parses and plans a model"
    else
        echo "not ok $n - $name parses and plans a model"
        sed 's/^/# /' <<<"$out"
        fail=1
    fi
done
echo "1..$n"
exit $fail
