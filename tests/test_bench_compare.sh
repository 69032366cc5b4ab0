#!/usr/bin/env bash
# bench/compare.sh's rounds (TAP), on our side alone (PyTorch left out) at
# a tiny size: with ROUNDS=3 each encoder runs three times in f32, one log
# each (and three times in bf16 where the CPU has it), and its cells are
# the median of the three with their range, "(lo-hi)", whose median is the
# middle one of the logs' own step times; the bf16 columns give a time and
# a speed-up where the CPU has bf16 and "-" where it has not or BF16=0;
# the PyTorch columns say "-" (left out), not "failed"; known step times
# give their median and range; ROUNDS=1 gives plain numbers; a rangefinder
# that cannot run makes its cells "failed".
#
#   tests/test_bench_compare.sh PATH/TO/rangefinder
set -u
rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-bench-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
cd "$(dirname "$0")/.." || exit 1
py=/usr/bin/python3

run() {   # run ROUNDS LOGDIR [RF [BF16]]: the table's "linear" row
    RF=${3:-$rf} BF16=${4:-1} ROUNDS=$1 LOGDIR=$2 TORCH2=0 TORCH113=0 SEQ=64 BATCH=2 FULL_BATCH=2 STEPS=1 LONG=0 \
        ENCODERS=linear bench/compare.sh 2>"$tmp/err" | grep '^| linear '
}

bf16_cpu=0
grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo && bf16_cpu=1

row=$(run 3 "$tmp/three")
echo "$row" >"$tmp/row"
[ "$(ls "$tmp"/three/ours-linear-*-f32-r[123].log 2>/dev/null | wc -l)" -eq 3 ] &&
    [ "$(ls "$tmp"/three/ours-linear-*-bf16-r[123].log 2>/dev/null | wc -l)" -eq $((3 * bf16_cpu)) ]
ok $? "ROUNDS=3 runs ours three times in f32, a log a round (and in bf16 where the CPU has it: $bf16_cpu)" "$tmp/err"

# the median and range of the three logs' step times, as the cell must give them
want=$("$py" - "$tmp"/three/ours-linear-*-f32-*.log <<'PY'
import json, statistics, sys
v = []
for path in sys.argv[1:]:
    lines = [l for l in open(path) if l.startswith("{")]
    v.append(json.loads(lines[-1])["step_s_median"])
print(f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})")
PY
)
cell=$(echo "$row" | cut -d'|' -f4 | sed 's/^ *//; s/ *$//')
[ -n "$want" ] && [ "$cell" = "$want" ]
ok $? "ours is the median of the rounds with their range: '$cell' (the logs say '$want')" "$tmp/row"

echo "$row" | cut -d'|' -f8-13 | grep -q '^ - | - | - | - | - | - $'
ok $? "PyTorch left out reads '-' in its six columns" "$tmp/row"

if [ $bf16_cpu = 1 ]; then
    echo "$row" | cut -d'|' -f6-7 | grep -Eq '^ [0-9]+\.[0-9]{3} \([0-9.]+-[0-9.]+\) \| [0-9]+\.[0-9]{2}x \([0-9.]+x-[0-9.]+x\) $'
    ok $? "on this CPU (bf16) the bf16 columns give a time and a speed-up, each with its range" "$tmp/row"
else
    echo "$row" | cut -d'|' -f6-7 | grep -q '^ - | - $'
    ok $? "on this CPU (no bf16) the bf16 columns read '-'" "$tmp/row"
fi
row=$(run 1 "$tmp/no-bf16" "$rf" 0)
echo "$row" | cut -d'|' -f6-7 | grep -q '^ - | - $' && [ -z "$(ls "$tmp"/no-bf16/*bf16* 2>/dev/null)" ]
ok $? "BF16=0 leaves bf16 out: '-' and no bf16 run" "$tmp/row"

# The arithmetic on known step times: a stand-in for rangefinder that
# answers 1, 6 and 2 s in turn (the real one's times are too alike to tell
# a median from a mean at three decimals)
printf '%s\n' 1 6 2 >"$tmp/times"
cat >"$tmp/fixed" <<FIXED
#!/bin/sh
t=\$(head -n 1 "$tmp/times"); sed -i 1d "$tmp/times"
echo "{\"step_s_median\": \$t, \"efficiency\": 0.\$t}"
FIXED
chmod +x "$tmp/fixed"
row=$(run 3 "$tmp/fixed-logs" "$tmp/fixed" 0)
echo "$row" >"$tmp/row"
echo "$row" | cut -d'|' -f4-5 | grep -q '^ 2.000 (1.000-6.000) | 20.0% (10.0%-60.0%) $'
ok $? "times of 1, 6 and 2 s make '2.000 (1.000-6.000)', efficiencies of 0.1, 0.6, 0.2 '20.0% (10.0%-60.0%)'" \
    "$tmp/row"

row=$(run 1 "$tmp/one")
echo "$row" >"$tmp/row"
echo "$row" | cut -d'|' -f4 | grep -Eq '^ [0-9]+\.[0-9]{3} $'
ok $? "ROUNDS=1 gives a plain number" "$tmp/row"

row=$(run 2 "$tmp/broken" /nonexistent/rangefinder 0)
echo "$row" >"$tmp/row"
echo "$row" | cut -d'|' -f4 | grep -q '^ failed $'
ok $? "a rangefinder that cannot run gives 'failed'" "$tmp/row"

tap_end
