#!/usr/bin/env bash
# Every shipped config in data/configs/ parses, validates and plans a model
# (the memory planner builds the whole graph; nothing is trained). A config
# whose data set is made by the user (data.path, e.g. spoken digits) and is
# not there is checked with `config` (parse and validate) instead.
# Usage: test_configs.sh RANGEFINDER CONFIG_DIR
bin=$1
dir=$2
n=0
fail=0
for cfg in "$dir"/*.ini; do
    n=$((n + 1))
    name=$(basename "$cfg")
    path=$(sed -n 's/^path *= *//p' "$cfg")
    if [ -n "$path" ] && [ ! -e "$path" ]; then
        if out=$("$bin" config --show --config "$cfg" 2>&1); then
            echo "ok $n - $name parses and validates ($path not made here, so no plan)"
        else
            echo "not ok $n - $name parses and validates"
            sed 's/^/# /' <<<"$out"
            fail=1
        fi
        continue
    fi
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
