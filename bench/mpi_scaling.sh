#!/usr/bin/env bash
# Issue 15's speed target: on one machine, 2 MPI ranks x 1 thread against
# 1 process x 1 thread on a config (default: the ListOps LS config), the
# same global batch. Prints each run's `bench --json` line and the
# throughput ratio (target: at least 1.8), with the gradient allreduce per
# step (alone, waited after backward, the share hidden behind backward).
#
#   bench/mpi_scaling.sh [CONFIG] [STEPS]     (a release build is best:
#   RF=build-release/rangefinder bench/mpi_scaling.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-data/configs/listops-ls.ini}
steps=${2:-5}
rf=${RF:-build/rangefinder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # harmless when not root
one=$("$rf" bench --config "$config" --set train.threads=1 --steps "$steps" --warmup 1 --json)
two=$(mpirun -np 2 --bind-to core "$rf" bench --config "$config" --set train.threads=1 --steps "$steps" --warmup 1 --json)
echo "1 rank  x 1 thread: $one"
echo "2 ranks x 1 thread: $two"
/usr/bin/python3 - "$one" "$two" <<'PY'
import json, sys
one, two = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"throughput 2 ranks / 1 rank: {one['step_s_median'] / two['step_s_median']:.2f}x "
      f"({one['step_s_median']:.3f} s -> {two['step_s_median']:.3f} s per global batch of {one['batch']})")
print(f"allreduce: {two['allreduce_bytes_per_step'] / 1024:.0f} KiB per step, {two['allreduce_s_alone'] * 1e3:.2f} ms "
      f"alone, {two['allreduce_s_waited'] * 1e3:.2f} ms waited after backward "
      f"({100 * two['allreduce_hidden_fraction']:.0f}% hidden)")
PY
