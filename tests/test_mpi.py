"""`rangefinder train` across MPI ranks (issue 15), as TAP.

  /usr/bin/python3 tests/test_mpi.py PATH/TO/rangefinder CONFIG

Every check runs the real program under Open MPI's mpirun (oversubscribed:
CI has two cores):
  1. K ranks with data.batch B give one process's losses with B (dropout
     and attention dropout on, so each rank's dropout draws must be its slice of the global
     batch's), for K = 2 and K = 3; evaluation is shared out and gives the
     same numbers.
  2. A given K is deterministic: two runs write the same bytes.
  3. A batch that does not divide over the ranks is refused in one line
     naming data.batch and the rank count.
  4. --resume with another K continues as an uninterrupted run.
  5. A rank killed (kill -9 on the process doing rank 1's work): the job
     ends with one message of ours, naming rank 1, the signal and the
     step (app/rank_watch.h), the other rank prints nothing, and the last
     checkpoint loads and resumes. SIGUSR1, to mpirun or to rank 1 alone
     (as when it reaches one rank first), stops every rank after one step;
     rank 0 says why and saves that step's checkpoint, and more requests
     while it saves do not kill it.
  6. A rank whose loss is not finite stops every rank with one line naming
     that rank and the step (both ranks get named, over the poisoned
     samples).
  7. --print-launch: the mpirun line runs as printed; the sbatch script is
     valid shell with the job's sizes; verbs other than train and bench
     refuse to run on several ranks.
  8. One trainer per run folder: rank 0 holds the folder's lock, so a
     train --resume beside a job is refused naming rank 0's process, and
     a job beside a trainer is refused in one line (section 5c).

Losses are compared with a relative tolerance of 1e-4: one process and K
ranks sum the same per-sample gradients in another order (a float
rounding, ~1e-7 relative), which ten AdamW steps carry into the losses;
the planted faults this guards against (ranks drawing the same samples,
gradients summed but not averaged, dropout masks repeated across ranks)
change the losses by 1e-2 or more (the last only where the optimiser sees
the gradient's scale: AdamW with eps 1 and no clipping, checked too).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

RF = os.path.realpath(sys.argv[1])
CONFIG = os.path.realpath(sys.argv[2])
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1",
           # Open MPI's own allocations are not ours to check for leaks
           ASAN_OPTIONS="detect_leaks=0",
           # train.gemm = auto times new product shapes on each rank, which
           # may pick different libraries (another rounding): fix the library
           RF_GEMM="openblas")
TINY = ["train.steps=10", "train.warmup=2", "train.log_every=1", "train.eval_every=5", "train.threads=1",
        "model.dropout=0.1", "model.attn_dropout=0.1", "data.val_size=40", "data.test_size=40", "train.checkpoint_every=5"]
TOL = 1e-4
count = 0
failures = 0


def ok(cond, name, diag=""):
    global count, failures
    count += 1
    print(("ok" if cond else "not ok") + f" {count} - {name}")
    if not cond:
        failures += 1
        for line in str(diag).splitlines()[-12:]:
            print("#", line)
    sys.stdout.flush()


def sets(extra):
    out = []
    for s in TINY + extra:
        out += ["--set", s]
    return out


def train(out, extra=(), ranks=0, resume=False, timeout=300):
    """rangefinder train, alone (ranks 0) or under mpirun -np ranks."""
    if resume:   # --resume takes the config from the run; only the keys given may change
        args = [RF, "train", "--resume", out] + [a for s in extra for a in ("--set", s)]
    else:
        args = [RF, "train", "--config", CONFIG, "--out", out] + sets(list(extra))
    if ranks:
        args = ["mpirun", "-np", str(ranks)] + args
    return subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=timeout)


def children(pid):
    """The processes whose parent is pid."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def metrics(run):
    rows = []
    if not os.path.exists(os.path.join(run, "metrics.csv")):
        return rows
    with open(os.path.join(run, "metrics.csv")) as f:
        next(f)
        for line in f:
            step, split, loss, acc = line.strip().split(",")[:4]
            rows.append((int(step), split, float(loss), float(acc)))
    return rows


def endless_job(name, extra=(), rows=8, checkpoint=False):
    """mpirun -np 2 training without end in run folder name, returned once
    metrics.csv has rows rows (and, if asked, a checkpoint exists)."""
    job = subprocess.Popen(["mpirun", "-np", "2", RF, "train", "--config", CONFIG, "--out", name] +
                           sets(["data.batch=8", "train.steps=100000", "train.warmup=0", "train.eval_every=0"] +
                                list(extra)),
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (len(metrics(name)) >= rows and
                                          (not checkpoint or os.path.exists(os.path.join(name, "checkpoint.safetensors")))):
        time.sleep(0.2)
    return job


def rank_workers(job):
    """{rank: pid} of the processes doing each rank's work: mpirun starts
    each rank's watcher, and the watcher's one child does the work."""
    workers = {}
    for watcher in children(job.pid):
        env = open(f"/proc/{watcher}/environ", "rb").read().split(b"\0")
        rank = [e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"OMPI_COMM_WORLD_RANK=")]
        kids = children(watcher)
        if rank and len(kids) == 1:
            workers[int(rank[0])] = kids[0]
    return workers


def checkpoint_step(name):
    """(the step of name's checkpoint as eval reports it or None, eval's output)."""
    ev = subprocess.run([RF, "eval", "--checkpoint", os.path.join(name, "checkpoint.safetensors"), "--json"],
                        env=ENV, capture_output=True, text=True, timeout=120)
    found = re.search(r'"step":\s*(\d+)', ev.stdout) if ev.returncode == 0 else None
    return (int(found.group(1)) if found else None), ev.stdout + ev.stderr


def same_metrics(a, b, skip=()):
    """(equal, why): the same rows (but those of b at the (step, split)s in
    skip), losses within TOL, accuracies equal."""
    ra, rb = metrics(a), [r for r in metrics(b) if r[:2] not in skip]
    if [r[:2] for r in ra] != [r[:2] for r in rb]:
        return False, f"rows differ: {[r[:2] for r in ra]} vs {[r[:2] for r in rb]}"
    worst = max(abs(x[2] - y[2]) / max(abs(x[2]), 1e-30) for x, y in zip(ra, rb))
    acc = all(abs(x[3] - y[3]) <= 1e-6 for x, y in zip(ra, rb))
    return worst <= TOL and acc, f"worst relative loss difference {worst:.3g}; accuracies equal: {acc}"


def rf_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("rangefinder:")]


tmp = tempfile.mkdtemp(prefix="rf-mpi.")
try:
    os.chdir(tmp)

    # 1. equal to one process. AdamW with a tiny eps and clipping both
    # forget the gradient's scale; the SGD-like case (eps 1, no clip) shows it.
    sgd_like = ["train.eps=1", "train.lr=0.5", "train.clip=0"]
    for ranks, batch, extra, how in ((2, 8, [], ""), (3, 6, [], ""), (2, 8, sgd_like, " (eps 1, no clip)")):
        tag = f"b{batch}" + ("-sgd" if extra else "")
        one, many = f"one-{tag}", f"np{ranks}-{tag}"
        r1 = train(one, [f"data.batch={batch}"] + extra)
        rk = train(many, [f"data.batch={batch}"] + extra, ranks=ranks)
        ok(r1.returncode == 0 and rk.returncode == 0, f"{ranks} ranks and one process train (batch {batch}{how})",
           r1.stderr + rk.stderr)
        if r1.returncode == 0 and rk.returncode == 0:
            equal, why = same_metrics(one, many)
            ok(equal, f"{ranks} ranks x {batch // ranks} = one process x {batch}{how}: train, val and test metrics",
               why)
            ok(rk.stdout.count("training ") == 1 and rk.stdout.count('"status":"finished"') == 1,
               f"{ranks} ranks: one start line and one result line (rank 0 alone prints)", rk.stdout[-600:])

    # 2. deterministic for a given rank count
    again = train("np2-b8-again", ["data.batch=8"], ranks=2)
    # (metrics.csv also holds wall-clock seconds: compare the rest)
    same = again.returncode == 0 and metrics("np2-b8") == metrics("np2-b8-again") and \
        open("np2-b8/checkpoint.safetensors", "rb").read() == open("np2-b8-again/checkpoint.safetensors", "rb").read()
    ok(same, "two runs on 2 ranks: the same metrics and the same checkpoint bytes", again.stderr)

    # 3. a batch that does not divide
    r = train("np3-b8", ["data.batch=8"], ranks=3)
    lines = rf_lines(r.stderr)
    ok(r.returncode != 0 and len(lines) == 1 and "data.batch = 8" in lines[0] and "3 ranks" in lines[0]
       and not os.path.exists("np3-b8"),
       "3 ranks with data.batch 8: one line naming data.batch and the rank count, nothing written", r.stderr)

    # 4. resume with another rank count (a constant schedule: train.steps may grow on resume)
    const = ["data.batch=8", "train.schedule=constant", "train.warmup=0"]
    whole = train("whole", const)
    for first, then in ((2, 0), (0, 2)):
        name = f"resume-{first}-{then}"
        a = train(name, const + ["train.steps=6"], ranks=first)
        b = train(name, ["train.steps=10"], ranks=then, resume=True)
        ok(whole.returncode == 0 and a.returncode == 0 and b.returncode == 0,
           f"6 steps on {first or 1} rank(s), resumed on {then or 1}", a.stderr + b.stderr)
        if b.returncode == 0:
            # the first part ended with its own val and test rows at step 6
            equal, why = same_metrics("whole", name, skip={(6, "val"), (6, "test")})
            ok(equal, f"resumed from {first or 1} to {then or 1} rank(s): the uninterrupted run's metrics", why)

    # 5. a rank killed
    name = "killed"
    job = endless_job(name, rows=12, checkpoint=True)
    workers = rank_workers(job)
    if len(workers) == 2:
        os.kill(workers[1], signal.SIGKILL)
    out, err = job.communicate(timeout=120)
    ok(len(workers) == 2 and job.returncode != 0, "killing a rank ends the job", err)
    ours = [line for line in err.splitlines() if line.startswith("rangefinder:")]
    ok(len(ours) == 1 and re.fullmatch(r"rangefinder: rank 1 was killed by signal 9 \(Killed\) during step \d+; "
                                       r"the job ends, and the last checkpoint stays valid \(continue with train "
                                       r"--resume\)", ours[0]) is not None,
       "one message names the killed rank, its signal and its step; the other rank prints nothing", err)
    ev = subprocess.run([RF, "eval", "--checkpoint", os.path.join(name, "checkpoint.safetensors")], env=ENV,
                        capture_output=True, text=True, timeout=120)
    ok(ev.returncode == 0, "the last checkpoint after the kill loads", ev.stderr)
    res = train(name, ["train.steps=%d" % (metrics(name)[-1][0] + 3)], resume=True)
    ok(res.returncode == 0, "and the run resumes", res.stderr)

    # 5b. SIGUSR1 to mpirun: every rank stops after the same step and rank 0 saves
    name = "stopped"
    job = endless_job(name, ["train.checkpoint_every=1000"])
    rank0 = rank_workers(job).get(0)
    job.send_signal(signal.SIGUSR1)
    # requests that come late, while rank 0 saves and after, change nothing
    deadline = time.time() + 120
    while job.poll() is None and rank0 is not None and time.time() < deadline:
        try:
            os.kill(rank0, signal.SIGUSR1)
        except ProcessLookupError:
            break
        time.sleep(0.002)
    out, err = job.communicate(timeout=120)
    rows = metrics(name)
    step = rows[-1][0] if rows else -1
    saved, ev = checkpoint_step(name)
    ok(rank0 is not None and job.returncode != 0 and "asked to stop (SIGUSR1)" in out and
       '"status":"stopped"' in out and "killed by signal" not in err and saved == step,
       f"SIGUSR1 to mpirun stops every rank and saves the checkpoint of the last step ({step}); "
       "more requests as it saves change nothing", out[-400:] + err + ev)

    # 5b'. the request reaches rank 1 first (mpirun passes SIGUSR1 on to one
    # rank after another): rank 0 stops with it, unasked, and still says why
    name = "stopped-by-rank1"
    job = endless_job(name, ["train.checkpoint_every=1000"])
    rank1 = rank_workers(job).get(1)
    if rank1 is not None:
        os.kill(rank1, signal.SIGUSR1)
    else:
        job.kill()
    out, err = job.communicate(timeout=120)
    rows = metrics(name)
    step = rows[-1][0] if rows else -1
    saved, ev = checkpoint_step(name)
    ok(rank1 is not None and job.returncode != 0 and "asked to stop (SIGUSR1)" in out and
       '"status":"stopped"' in out and saved == step,
       f"SIGUSR1 to rank 1 alone: rank 0 stops too, says why and saves the checkpoint of the last step ({step})",
       out[-400:] + err + ev)

    # 5c. one trainer per run folder (config/run_lock.h): rank 0 holds the lock
    def refused(out, steps, ranks=0):
        """(exit, stderr) of a --resume expected to be refused at once; a
        trainer that was not refused is killed after 30 s."""
        try:
            r = train(out, [f"train.steps={steps}"], ranks=ranks, resume=True, timeout=30)
            return r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            return None, "still training after 30 s"

    name = "locked"
    job = endless_job(name, checkpoint=True)
    rank0 = rank_workers(job).get(0)
    code, err = refused(name, 200000)
    want = (f"rangefinder: {name} is being trained by process {rank0} (rangefinder train, rank 0 of 2 under MPI); "
            "wait for it to finish or stop it")
    ok(code == 1 and rf_lines(err) == [want], "train --resume on a folder a job trains is refused, naming rank 0's "
       "process", err)
    job.send_signal(signal.SIGUSR1)
    job.communicate(timeout=120)
    log = open("locked-alone.out", "w")
    single = subprocess.Popen([RF, "train", "--resume", name, "--set", "train.steps=200000"], env=ENV, stdout=log,
                              stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and single.poll() is None and "resuming" not in open("locked-alone.out").read():
        time.sleep(0.1)
    rows = len(metrics(name))
    code, err = refused(name, 300000, ranks=2)
    want = (f"rangefinder: rank 0: {name} is being trained by process {single.pid} (rangefinder train); "
            "wait for it to finish or stop it")
    ok(code == 1 and rf_lines(err) == [want], "a job's --resume on a folder being trained is refused in one line, "
       "by rank 0", err)
    single.send_signal(signal.SIGUSR1)
    single.wait(timeout=120)
    log.close()
    ok(single.returncode == 130 and len(metrics(name)) > rows, "and the trainer goes on, then stops cleanly",
       f"exit {single.returncode}")

    # 6. one rank's loss not finite: poison one sample at a time
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 16, 1)).astype(np.float32)
    y = (np.arange(8) % 2).astype(np.int32)
    named, one_line = set(), True
    for poisoned in range(8):
        d = f"poison{poisoned}"
        os.mkdir(d)
        xp = x.copy()
        xp[poisoned] = 3e38      # finite, but overflows the first layer
        np.save(os.path.join(d, "x.npy"), xp)
        np.save(os.path.join(d, "y.npy"), y)
        np.save(os.path.join(d, "x_test.npy"), x[:4])
        np.save(os.path.join(d, "y_test.npy"), y[:4])
        r = subprocess.run(["mpirun", "-np", "2", RF, "train", "--config", CONFIG, "--out", d + "-run",
                            "--set", "data.task=npy", "--set", "data.path=" + d, "--set", "data.max_len=16",
                            "--set", "data.val_size=1", "--set", "data.train_size=7", "--set", "data.batch=4",
                            "--set", "train.steps=6", "--set", "train.warmup=0", "--set", "train.threads=1",
                            "--set", "train.eval_every=0"],
                           env=ENV, capture_output=True, text=True, timeout=120)
        lines = rf_lines(r.stderr)
        if r.returncode == 0 or (len(lines) == 1 and "the val loss is not finite" in lines[0]):
            continue       # the sample went to validation
        m = re.fullmatch(r"rangefinder: rank (\d), step (\d+): the loss is not finite; stopping .*", lines[0]) \
            if len(lines) == 1 else None
        one_line = one_line and m is not None
        if m:
            named.add(int(m.group(1)))
        else:
            print("# poisoned sample", poisoned, ":", r.stderr.strip().replace("\n", " | ")[:400])
    ok(one_line and named == {0, 1},
       "a rank's non-finite loss stops the job in one line naming the rank and step (ranks named: %s)"
       % sorted(named))

    # 7. launch lines
    pl = subprocess.run([RF, "train", "--config", CONFIG, "--out", "launched", "--print-launch", "mpirun",
                         "--ranks", "2"] + sets(["data.batch=8", "train.steps=4", "train.warmup=0"]),
                        env=ENV, capture_output=True, text=True)
    line = pl.stdout.strip()
    ok(pl.returncode == 0 and line.startswith("mpirun -np 2 ") and " train --config " in line,
       "--print-launch mpirun prints one mpirun line", pl.stdout + pl.stderr)
    run = subprocess.run(["bash", "-c", line], env=ENV, capture_output=True, text=True, timeout=300)
    ok(run.returncode == 0 and len(metrics("launched")) > 0 and "on 2 ranks" in run.stdout,
       "the printed mpirun line trains on 2 ranks as printed", run.stdout[-500:] + run.stderr)
    sb = subprocess.run([RF, "train", "--config", CONFIG, "--out", "cluster", "--print-launch", "slurm",
                         "--ranks", "4", "--set", "data.batch=32", "--set", "train.threads=3"],
                        env=ENV, capture_output=True, text=True)
    script = sb.stdout
    syntax = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    ok(sb.returncode == 0 and script.startswith("#!/bin/bash") and "#SBATCH --ntasks=4" in script
       and "#SBATCH --cpus-per-task=3" in script and "\nmpirun " in script and " -np " not in script
       and syntax.returncode == 0, "--print-launch slurm: an sbatch script with the job's sizes", script)
    bad = subprocess.run([RF, "train", "--config", CONFIG, "--print-launch", "slurm", "--ranks", "3",
                          "--set", "data.batch=32"], env=ENV, capture_output=True, text=True)
    ok(bad.returncode == 2 and "data.batch = 32" in bad.stderr and "3 ranks" in bad.stderr,
       "--print-launch refuses a rank count that does not divide data.batch", bad.stderr)
    ev = subprocess.run(["mpirun", "-np", "2", RF, "eval", "--checkpoint", "whole/checkpoint.safetensors"],
                        env=ENV, capture_output=True, text=True, timeout=120)
    ok(ev.returncode != 0 and len(rf_lines(ev.stderr)) == 1 and "only train and bench" in ev.stderr,
       "eval under mpirun -np 2 is refused in one line", ev.stderr)
finally:
    os.chdir("/")
    shutil.rmtree(tmp, ignore_errors=True)

print(f"1..{count}")
sys.exit(1 if failures else 0)
