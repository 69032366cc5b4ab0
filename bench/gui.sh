#!/bin/sh
# The workbench's speed benchmark (issue 5, "Speed"; results in
# docs/bench-gui.md): bench_gui drives the real application under Xvfb at
# 1920x1080 while a run of N = 4096 tokens trains on one thread (all but one
# of two cores), then `rangefinder bench` times the same config without the
# UI for the throughput comparison.
#
# Usage: bench/gui.sh [BUILD_DIR]   (default: build; needs its
#        bench/bench_gui and rangefinder: ninja -C BUILD_DIR bench/bench_gui rangefinder)
set -eu

build=${1:-build}
bench_gui=$build/bench/bench_gui
rangefinder=$build/rangefinder
for exe in "$bench_gui" "$rangefinder"; do
    if [ ! -x "$exe" ]; then
        echo "gui.sh: $exe is missing: ninja -C $build bench/bench_gui rangefinder" >&2
        exit 1
    fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/rf-bench-gui-XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Random tokens of 4000-4096, batch 2, dim 64, 4 heads, 2 layers, full
# attention, one training thread; bench_gui switches the encoder to BLRP
# (segment 128, latent 64) and TaLK for the Latent and TaLK views.
cat > "$dir/full.ini" <<'EOF'
[data]
task = random
max_len = 4096
min_len = 4000
train_size = 64
val_size = 4
test_size = 4
batch = 2

[model]
encoder = full
layers = 2
dim = 64
heads = 4
ff = 128

[train]
steps = 100000
lr = 1e-3
warmup = 10
eval_every = 0
checkpoint_every = 0
log_every = 1
threads = 1
EOF

echo "machine: $(nproc) cores; $(uptime)"
# The Training view also overlays the ten committed ListOps runs (issue 12's "ten runs overlaid").
GTK_A11Y=none xvfb-run -a -s "-screen 0 1920x1200x24" "$bench_gui" "$dir/full.ini" "$dir/results.txt" \
    "$(dirname "$0")"/runs/listops-*

json=$("$rangefinder" bench --config "$dir/full.ini" --set train.threads=1 --steps 30 --warmup 3 --json)
cli=$(printf '%s\n' "$json" | sed -n 's/.*"step_s_median": *\([0-9.eE+-]*\).*/\1/p')
echo "machine after: $(uptime)"

value() {
    sed -n "s/^$1 = //p" "$dir/results.txt"
}

echo
echo "Throughput, full attention, N = 4096, batch 2, 1 training thread, 30 steps after 3 warm-up"
awk -v cli="$cli" \
    -v ts="$(value gui_training_step_s)" -v tw="$(value gui_training_wall_s)" \
    -v as="$(value gui_attention_step_s)" -v aw="$(value gui_attention_wall_s)" 'BEGIN {
    printf "%-36s %10s %10s %12s\n", "run", "s/step", "vs CLI", "within 10%"
    printf "%-36s %10.4f %10s %12s\n", "rangefinder bench (no UI), median", cli, "1.00", "-"
    row("workbench, Training view: median", ts)
    row("workbench, Training view: wall", tw)
    row("workbench, Attention view: median", as)
    row("workbench, Attention view: wall", aw)
}
function row(name, v) {
    r = v / cli
    printf "%-36s %10.4f %10.2f %12s\n", name, v, r, (r <= 1.10 ? "yes" : "no")
}'
