#!/bin/bash
# Rangefinder on a real GPU, in one command on the GPU machine, from the
# repository's root with .gpu/bundle.tar.xz beside it (bench/gpu/pack.sh):
# benches of every ListOps encoder, the *_gpu tests, compute-sanitizer, an
# mpirun -np 1 run over NCCL against the same run without mpirun, and the
# ListOps reproduction runs of RUNS (at most 6 at once, in that order; one
# committed part way in bench/runs/listops-NAME continues from there), stopped
# and saved at FINAL seconds from the start (each then continues with
# `train --resume`). A run named NAME=BASE:KEY=VALUE,... is a variant: the
# config listops-BASE.ini with those --set, in bench/runs/listops-NAME; the
# key init=RUN starts it from bench/runs/listops-RUN's weights instead (the
# last stage of a curriculum, docs/reproduction.md). PARTS
# picks the rest (bench tests mpi memcheck racecheck cpu; default all but
# racecheck and cpu). The part cpu records issue 14 item 8's figures on this
# machine's own CPU, 2 of its cores as on the build machines, with nothing
# else running: bench/compare.sh against its PyTorch, after everything else
# (run it alone: RUNS= PARTS=cpu). The part torch sets ours against the
# machine's PyTorch on this GPU (docs/benchmarks.md, "On a GPU, against
# PyTorch"): every encoder at the ListOps settings and at N = TORCH_LONG
# (16384), our bench against bench/gpu/torch_gpu.py in every mode, and one
# table, $OUT/gpu-table.md (bench/gpu/gpu_table.py); the part roofline, the
# bytes of LS, TaLK, linear attention and MAELRE's ops beside their measured
# kernel times (bench --profile). Run them alone, as the timings need the
# GPU to themselves: RUNS= PARTS="roofline torch" FINAL=480 (about 8
# minutes, and at most FINAL + 20 seconds: what is left then is cut).
# The part million trains every encoder at a million tokens on the GPU
# (bench/million.sh: ls, linear, talk and maelre at 1,048,576, full
# attention at 131,072, then blrp at 1,048,576 for up to 240 s), each alone
# on the GPU; the part resume continues
# the run folders named in RESUME (from RESUME_FROM, default bench/runs:
# the long_match runs of docs/reproduction.md) on the GPU until FINAL,
# beside the tests, and returns them as $OUT/resumed.tar.gz.
# Logs and run folders go to $OUT: log.txt, out.tar.gz, the runs' two
# archives, and these two parts' gpu-table.md and roofline.txt.
#   OUT=DIR [FINAL=420] [RUNS="full blrp ..."] [PARTS="tests memcheck"] bash bench/gpu/run.sh
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
# a limit of at most $1 seconds that ends by FINAL + 20
lim() { local l=$(( FINAL + 20 - $(el) )); [ $l -lt 1 ] && l=1; [ $l -lt $1 ] && echo $l || echo $1; }
FINAL=${FINAL:-420}
PARTS=" ${PARTS:-bench tests mpi memcheck} "
part() { [[ "$PARTS" == *" $1 "* ]]; }
RUNS=${RUNS-blrp-curriculum-long full blrp-curriculum=blrp:init=blrp-len100-500-init \
full-curriculum=full:init=full-len100-500-init blrp linear maelre blrp-phi-shared blrp-phi-siamese blrp-forward-phi-residual \
blrp-backward-phi-residual blrp-forward-phi-init blrp-backward-phi-init blrp-forward-posemb blrp-backward-posemb}
W=/tmp/rf
mkdir -p $W/out $W/runs
exec > >(tee $OUT/log.txt) 2>&1
tar -C $W -xJf .gpu/bundle.tar.xz || { echo "bundle did not unpack"; exit 2; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
cat /etc/os-release | head -2; nproc

# Our Debian libraries only where the machine lacks one (its newer ones are compatible).
for f in $W/lib/*; do
    n=$(basename $f)
    if ldconfig -p | grep -q " $n "; then rm -f $f; fi
done
LP=$W/lib
for l in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    if [ -e /usr/local/cuda/lib64/$l ] || ldconfig -p | grep -q " $l "; then continue; fi
    d=$(find /usr/local /opt /usr/lib -name "$l" 2>/dev/null | head -1)
    if [ -n "$d" ]; then LP=$LP:$(dirname $d)
    elif [ $l = libcudart.so.13 ]; then LP=$LP:$W/cudart
    else echo "MISSING $l"; fi
done
export LD_LIBRARY_PATH=$LP:/usr/local/cuda/lib64
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
if ldd $W/bin/rangefinder $W/bin/kernels/librfcuda.so | grep 'not found'; then echo "libraries missing: stop"; exit 3; fi
RF=$W/bin/rangefinder
export OPENBLAS_NUM_THREADS=2 XDG_CACHE_HOME=$W/cache UBSAN_OPTIONS=halt_on_error=1
nvidia-smi -L

if part million; then
    echo "== a million tokens t=$(el)"
    RF=$RF DEVICE=cuda TIMEOUT=$(lim 90) OUT=$W/out/million.jsonl ENCODERS="ls linear talk maelre" \
        bash bench/million.sh 1048576
    RF=$RF DEVICE=cuda TIMEOUT=$(lim 120) OUT=$W/out/million.jsonl ENCODERS=full STEPS=2 bash bench/million.sh 131072
    # BLRP last: its 10,486 segment steps run one after another, about 50 s a step
    RF=$RF DEVICE=cuda TIMEOUT=$(lim 240) OUT=$W/out/million.jsonl ENCODERS=blrp STEPS=2 bash bench/million.sh 1048576
    cp $W/out/million.jsonl $OUT/ 2>/dev/null
fi

echo "== benches t=$(el)"
part bench && for e in full ls linear talk maelre blrp; do
    timeout 60 $RF bench --config data/configs/listops-$e.ini --set train.device=cuda --steps 20 --warmup 3 --json \
        > $W/out/bench-$e.json 2> $W/out/bench-$e.err
    echo "bench $e rc=$? $(cat $W/out/bench-$e.json | head -c 900)"; tail -2 $W/out/bench-$e.err
done
part bench && { timeout 60 $RF bench --config data/configs/listops-ls.ini --set train.device=cuda --steps 10 --inference \
    --profile > $W/out/bench-ls-profile.txt 2>&1; echo "profile rc=$?"; }

# The bytes each op kind of LS, TaLK, linear attention and MAELRE must move
# in a step (core/traffic.h) beside its kernels' time, each kernel waited
# for (bench --profile), at the ListOps settings. The bounds: the H200's
# dense f32 rate, 67 TFLOP/s (datasheet; no TF32 here), and the copy
# bandwidth measured through PyTorch on such a machine, 4.3 TB/s counting
# bytes read and written (4.8 TB/s on the datasheet).
if part roofline; then
    echo "== bytes and kernel times t=$(el)"
    for e in ls talk linear maelre; do
        timeout "$(lim 60)" "$RF" bench --config "data/configs/listops-$e.ini" --set train.device=cuda \
            --set data.task=random --set data.vocab=20 --steps 5 --warmup 2 --profile \
            --device-bounds 67000,4300 > "$W/out/roofline-$e.txt" 2>&1
        echo "roofline $e rc=$?"; sed -n '/^op /,/^bounds:/p' "$W/out/roofline-$e.txt" | tee -a "$OUT/roofline.txt"
    done
fi

# Ours and PyTorch on this GPU (part torch). Both sides see random tokens,
# every one valid (data.task = random), at the configs' model settings and
# batch at N = 2000, and at batch 4 at N = TORCH_LONG (65,536 tokens a
# step, about ListOps' 64,000). Compilation is what takes PyTorch's time:
# first every compiled configuration is compiled at once on the CPU's cores
# (one step each, untimed: their compile_s, in cold-torch-*, is the cold
# compilation), filling TorchInductor's cache; then each side is timed
# alone, PyTorch for at most TORCH_LIMIT seconds a process (the compiled
# configurations come last, so a limit cuts those).
TORCH_LONG=${TORCH_LONG:-16384}
TORCH_LIMIT=${TORCH_LIMIT:-30}
ENCODERS="full ls linear talk maelre blrp"
batch_of() {   # N: the batch at length N, none (the config's) at the ListOps length
    [ "$1" = 2000 ] || echo 4
}
if part torch; then
    echo "== ours and PyTorch on this GPU t=$(el)"
    export TORCHINDUCTOR_CACHE_DIR="$W/inductor"
    for n in 2000 "$TORCH_LONG"; do
        b=$(batch_of "$n")
        for e in $ENCODERS; do
            TORCHINDUCTOR_COMPILE_THREADS=2 timeout "$(lim 150)" python3 bench/gpu/torch_gpu.py --encoder "$e" --seq "$n" \
                ${b:+--batch "$b"} --modes compiled,flex --steps 1 --warmup 0 \
                > "$W/out/cold-torch-$e-$n.jsonl" 2> "$W/out/cold-torch-$e-$n.err" &
        done
    done
    wait
    echo "compiled t=$(el): $(cat "$W"/out/cold-torch-*.jsonl | grep -c compile_s) configurations"
    for n in 2000 "$TORCH_LONG"; do
        b=$(batch_of "$n")
        for e in $ENCODERS; do
            timeout "$(lim 60)" "$RF" bench --config "data/configs/listops-$e.ini" --set train.device=cuda \
                --set data.task=random --set data.vocab=20 --set data.max_len="$n" \
                ${b:+--set data.batch="$b"} --steps 10 --warmup 3 --inference --json \
                > "$W/out/ours-$e-$n.json" 2> "$W/out/ours-$e-$n.err"
            echo "ours $e N=$n rc=$? t=$(el)"; tail -1 "$W/out/ours-$e-$n.err"
            timeout "$(lim "$TORCH_LIMIT")" python3 bench/gpu/torch_gpu.py --encoder "$e" --seq "$n" ${b:+--batch "$b"} \
                --steps 5 --warmup 2 > "$W/out/torch-$e-$n.jsonl" 2> "$W/out/torch-$e-$n.err"
            echo "torch $e N=$n rc=$? t=$(el): $(wc -l < "$W/out/torch-$e-$n.jsonl") configurations"
            grep -v Warning "$W/out/torch-$e-$n.err" | tail -2
        done
    done
    python3 bench/gpu/gpu_table.py "$W"/out/ours-*.json "$W"/out/torch-*.jsonl --cold "$W"/out/cold-torch-*.jsonl |
        tee "$OUT/gpu-table.md"
fi

# Reproduction runs: at most 6 at once, the four main configs first, stopped (and saved) at FINAL.
run_one() {
    local c=${1%%=*} base=${1%%=*} sets=() init=() kv
    if [[ "$1" == *=* ]]; then   # NAME=BASE:KEY=VALUE,...
        base=${1#*=}; base=${base%%:*}
        local IFS=,
        for kv in ${1#*:}; do
            # init=RUN: a curriculum's next stage, from a committed run's weights (train --init)
            if [[ $kv == init=* ]]; then init=(--init "bench/runs/listops-${kv#init=}/checkpoint.safetensors")
            else sets+=(--set "$kv"); fi
        done
        unset IFS
    fi
    local d=$W/runs/listops-$c
    local left=$(( FINAL - $(el) ))
    [ $left -gt 20 ] || return
    # a run committed part way in bench/runs continues; a finished one is left alone
    local committed=bench/runs/listops-$c how
    # (a run's test row is its last, written when its last step is done)
    if tail -1 $committed/metrics.csv 2>/dev/null | grep -q ',test,'; then echo "run $c: finished already"; return; fi
    if [ -f $committed/checkpoint.safetensors ]; then
        cp -r $committed $d
        how="--resume $d"
    else
        how="--config data/configs/listops-$base.ini --out $d --set train.eval_every=250 --set train.checkpoint_every=250"
        sets+=("${init[@]}")   # a resumed run already has its weights
    fi
    echo "run $c: $how ${sets[*]}"
    # USR1, not INT: timeout signals twice, and a second SIGINT quits without saving
    XDG_CACHE_HOME=$W/cache-$c timeout -s USR1 -k 30 $left $RF train $how "${sets[@]}" --set train.device=cuda --set train.threads=2 \
        > $W/runs/train-$c.log 2>&1
    echo "run $c rc=$? t=$(el): $(tail -1 $W/runs/train-$c.log)"
    # the length test (data.concat = 1..4) of every BLRP run that finishes here
    if [[ $c == blrp* ]] && tail -1 $d/metrics.csv 2>/dev/null | grep -q ",test,"; then
        for k in 1 2 3 4; do
            XDG_CACHE_HOME=$W/cache-$c timeout $(lim 60) $RF eval --checkpoint $d/checkpoint.safetensors --set train.device=cuda \
                --set data.concat=$k --set data.batch=8 --json > $d/eval-concat$k.json 2>&1
            echo "eval $c concat $k: $(cat $d/eval-concat$k.json)"
        done
    fi
    # whatever step it reached: its answers per outermost operator (docs/reproduction.md,
    # "What 36% means"), on 4 CPU threads beside the other runs' GPU work
    if [[ $c == blrp* ]] && [ -f $d/checkpoint.safetensors ]; then
        timeout $(lim 120) $RF eval --checkpoint $d/checkpoint.safetensors --set train.device=cpu --set train.threads=4 \
            --by-first-token --json > $d/eval-by-first-token.json 2>&1
        echo "eval $c by first token: $(cat $d/eval-by-first-token.json)"
    fi
}
(
    for c in $RUNS; do
        while [ $(jobs -rp | wc -l) -ge 6 ]; do sleep 2; done
        [ $(el) -lt $(( FINAL - 60 )) ] || break
        run_one $c &
        sleep 1
    done
    wait
) &
SCHED=$!

# Committed run folders continued on the GPU, stopped (and saved) at FINAL.
RESUME_FROM=${RESUME_FROM:-bench/runs}
resume_one() {
    local d=$W/resumed/$1 left=$(( FINAL - $(el) ))
    mkdir -p $W/resumed && cp -r "$RESUME_FROM/$1" $d && rm -f $d/.lock || return
    echo "resume $1 from step $(tail -1 $d/metrics.csv | cut -d, -f1)"
    XDG_CACHE_HOME=$W/cache-$1 timeout -s USR1 -k 30 $left $RF train --resume $d --set train.device=cuda \
        > $W/resumed/train-$1.log 2>&1
    echo "resume $1 rc=$? t=$(el): $(tail -1 $d/metrics.csv)"
}
RESUMED=()
if part resume; then
    for c in ${RESUME:-}; do resume_one $c & RESUMED+=($!); done
fi

echo "== tests t=$(el)"
part tests && for t in kernels linalg mechanisms backend; do
    timeout $(lim 150) $W/bin/test_cuda_${t}_gpu > $W/out/test_$t.txt 2>&1
    rc=$?
    echo "test_cuda_${t}_gpu rc=$rc t=$(el): $(grep -c '^ok' $W/out/test_$t.txt) ok, $(grep -c '^not ok' $W/out/test_$t.txt) not ok"
    grep -E '^not ok|skip' $W/out/test_$t.txt | head -20; tail -2 $W/out/test_$t.txt
done

echo "== mpirun -np 1 over NCCL t=$(el)"
O=$W/ompi
export OPAL_PREFIX=$O/usr PMIX_INSTALL_PREFIX=$O/usr
MPIR="$O/usr/bin/orterun --allow-run-as-root -np 1"
part mpi && for mode in plain mpi; do
    pre=""; [ $mode = mpi ] && pre="$MPIR"
    LD_LIBRARY_PATH=$O/usr/lib/x86_64-linux-gnu:$O/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH \
        timeout $(lim 90) $pre $RF train --config data/configs/listops-ls.ini --out $W/out/np1-$mode \
        --set train.device=cuda --set train.steps=40 --set train.warmup=10 --set train.log_every=10 --set train.eval_every=40 \
        > $W/out/np1-$mode.log 2>&1
    echo "np1 $mode rc=$?"; tail -4 $W/out/np1-$mode.log
done
# issue 15 item 4: mpirun -np 1 over NCCL must give the plain run's metrics (all but the seconds column)
if ! part mpi; then :
elif cmp -s <(cut -d, -f1-5 $W/out/np1-plain/metrics.csv 2>/dev/null) <(cut -d, -f1-5 $W/out/np1-mpi/metrics.csv 2>/dev/null) &&
    [ -s $W/out/np1-mpi/metrics.csv ]; then
    echo "np1: mpirun -np 1 gives the plain run's metrics: SAME"
else
    echo "np1: mpirun -np 1 and the plain run DIFFER"
    paste -d'|' $W/out/np1-plain/metrics.csv $W/out/np1-mpi/metrics.csv 2>/dev/null | head -8
fi

echo "== compute-sanitizer t=$(el)"
for tool in memcheck racecheck; do
    part $tool || continue
    for t in kernels mechanisms; do
        [ $(el) -lt $(( FINAL - 40 )) ] || break
        timeout $(( FINAL - $(el) - 10 )) compute-sanitizer --tool $tool --print-limit 20 $W/bin/test_cuda_${t}_gpu \
            > $W/out/$tool-$t.txt 2>&1
        echo "$tool $t rc=$? t=$(el)"; grep -E 'ERROR SUMMARY|Invalid|hazard|not supported|Error' $W/out/$tool-$t.txt | head -8
    done
done

wait $SCHED ${RESUMED[@]}
[ ${#RESUMED[@]} = 0 ] || tar -C $W/resumed --exclude=weights --exclude=.lock -czf $OUT/resumed.tar.gz .
echo "== this machine's CPU on 2 cores (issue 14 item 8) t=$(el)"
if part cpu; then
    grep -m1 'model name' /proc/cpuinfo; grep -o -w -E 'avx512f|avx512_bf16|amx_bf16|amx_tile' /proc/cpuinfo | sort -u | xargs
    XDG_CACHE_HOME=$W/cache-cpu timeout $(lim 400) taskset -c 0,1 env RF=$RF PY=python3 LONG=0 STEPS=2 \
        LOGDIR=$W/out/compare bash bench/compare.sh > $W/out/compare.txt 2>&1
    echo "compare rc=$?"; cat $W/out/compare.txt
fi
echo "== done t=$(el)"
nvidia-smi --query-gpu=memory.used --format=csv
tar -C $W -czf $OUT/out.tar.gz out
# two archives, each under the 16 MB a returned file may have
main=$(cd $W/runs && ls -d train-*.log $(ls -d listops-* 2>/dev/null | grep -v '^listops-blrp-') 2>/dev/null)
ablations=$(cd $W/runs && ls -d listops-blrp-* 2>/dev/null)
[ -z "$main" ] || tar -C $W/runs -czf $OUT/runs-main.tar.gz $main
[ -z "$ablations" ] || tar -C $W/runs -czf $OUT/runs-ablations.tar.gz $ablations
ls -la $OUT
