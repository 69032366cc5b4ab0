"""Rangefinder's TensorBoard event files against TensorBoard's own reader
and writer (TAP output).

Usage: check_tensorboard.py TEST_TB_EVENTS_EXE RANGEFINDER_EXE VENV

TensorBoard comes from PyPI, in the virtual environment VENV that
`./setup.sh test` makes (`pip install tensorboard`); this script re-runs
itself with that environment's Python. Without it the checks are skipped
with the reason, and with CI=true that is a failure.

1. Our writer, TensorBoard's reader: a tiny `rangefinder train` run and a
   run resumed from a checkpoint older than its last rows
   (`TEST_TB_EVENTS_EXE --write-resumed DIR`) are read by
   tensorboard's EventAccumulator. Every scalar equals its metrics.csv row
   (each step once, after the resume's purge), and the HParams plugin's
   parser reads the session's start (every config.ini key and value) and end
   (success, or failure for a run that diverges).
2. TensorBoard's writer, our reader: files written by tensorboard's
   EventFileWriter the ways PyTorch's SummaryWriter and TensorFlow write
   scalars (simple_value, float and double tensors, a restart) are read by
   `TEST_TB_EVENTS_EXE --dump DIR` with the same values, and a damaged byte
   is reported with the file and its offset. `rangefinder plot` draws the
   folder.
"""
import configparser
import csv
import math
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

count = 0
failed = 0


def ok(cond, what, diag=""):
    global count, failed
    count += 1
    if not cond:
        failed += 1
    print(f"{'ok' if cond else 'not ok'} {count} - {what}")
    if not cond and diag:
        for line in str(diag).splitlines():
            print(f"# {line}")
    sys.stdout.flush()
    return cond


def skip_all(reason):
    if os.environ.get("CI") == "true":
        print("1..1")
        print(f"not ok 1 - TensorBoard from PyPI is needed under CI=true: {reason}")
        sys.exit(1)
    print(f"1..0 # SKIP {reason}")
    sys.exit(0)


def ensure_tensorboard(venv):
    try:
        import tensorboard  # noqa: F401
        return
    except ImportError:
        pass
    python = Path(venv) / "bin" / "python"
    if os.environ.get("RF_TB_REEXEC") or not python.exists():
        skip_all(f"no tensorboard: {python} is missing (./setup.sh test makes it with pip; PyPI unreachable?)")
    os.environ["RF_TB_REEXEC"] = "1"
    os.execv(str(python), [str(python)] + sys.argv)


TOOL, RF, VENV = sys.argv[1:4]
ensure_tensorboard(VENV)

from tensorboard.backend.event_processing import event_accumulator  # noqa: E402
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2  # noqa: E402
from tensorboard.plugins.hparams import api_pb2, metadata as hp_metadata  # noqa: E402
from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: E402


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def csv_series(run_dir):
    """{tag: [(step, value)]} as the run's event file should hold them."""
    series = {}
    with open(Path(run_dir) / "metrics.csv") as f:
        for row in csv.DictReader(f):
            step, split = int(row["step"]), row["split"]
            for column, tag in (("loss", f"{split}/loss"), ("accuracy", f"{split}/accuracy")):
                series.setdefault(tag, []).append((step, float(row[column])))
            if split == "train":
                series.setdefault("lr", []).append((step, float(row["lr"])))
            series.setdefault("time/seconds", []).append((step, float(row["seconds"])))
    return series


def close(tag, a, b):
    # metrics.csv keeps 6 significant digits (seconds 3 decimals), the event file a float32
    if tag == "time/seconds":
        return abs(a - b) <= 5e-4 + 1e-6 * abs(b)
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) or (math.isnan(a) and math.isnan(b))


def check_run_read_by_tensorboard(run_dir, what, status, config_ini):
    acc = event_accumulator.EventAccumulator(str(run_dir), size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    want = csv_series(run_dir)
    tags = set(acc.Tags()["scalars"])
    ok(set(want) <= tags, f"{what}: TensorBoard finds every metrics.csv series", f"missing {set(want) - tags}")
    bad = []
    for tag, points in want.items():
        got = [(e.step, e.value) for e in acc.Scalars(tag)] if tag in tags else []
        if len(got) != len(points) or any(gs != ws or not close(tag, gv, wv) for (gs, gv), (ws, wv) in zip(got, points)):
            bad.append(f"{tag}: tensorboard {got[:6]}... metrics.csv {points[:6]}...")
    ok(not bad, f"{what}: every scalar TensorBoard reads equals its metrics.csv row, each step once", "\n".join(bad))

    try:
        content = acc.PluginTagToContent(hp_metadata.PLUGIN_NAME)
    except KeyError:   # no summary of that plugin at all
        content = {}
    start = content.get(hp_metadata.SESSION_START_INFO_TAG)
    end = content.get(hp_metadata.SESSION_END_INFO_TAG)
    if not ok(start is not None and end is not None, f"{what}: the HParams session's start and end are there",
              f"hparams tags: {list(content)}"):
        return
    info = hp_metadata.parse_session_start_info_plugin_data(start)
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(config_ini)
    mismatched = []
    n = 0
    for section in ini.sections():
        for key, text in ini[section].items():
            n += 1
            value = info.hparams.get(f"{section}.{key}")
            kind = value.WhichOneof("kind") if value is not None else None
            if kind == "number_value":
                good = float(text) == value.number_value
            else:
                good = kind == "string_value" and value.string_value == text
            if not good:
                mismatched.append(f"{section}.{key} = {text!r}: {value}")
    ok(n > 10 and not mismatched and len(info.hparams) == n,
       f"{what}: the hyperparameters are the {n} keys and values of {config_ini.name}", "\n".join(mismatched[:10]))
    end_info = hp_metadata.parse_session_end_info_plugin_data(end)
    ok(end_info.status == status, f"{what}: the session ends {api_pb2.Status.Name(status)}",
       api_pb2.Status.Name(end_info.status))


def our_writer(tmp):
    tiny_ini = tmp / "tiny.ini"
    tiny_ini.write_text("[data]\ntask = listops\n\n[train]\nseed = 3\n")
    tiny = ["data.max_len=60", "data.min_len=10", "data.train_size=64", "data.val_size=16", "data.test_size=16",
            "data.batch=4", "model.dim=16", "model.heads=2", "model.ff=32", "train.steps=6", "train.eval_every=3",
            "train.checkpoint_every=3", "train.log_every=2", "train.threads=1"]
    run = tmp / "cli-run"
    args = [RF, "train", "--config", str(tiny_ini), "--out", str(run)]
    for s in tiny:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if ok(r.returncode == 0, "rangefinder train runs", r.stdout + r.stderr):
        check_run_read_by_tensorboard(run, "rangefinder train", api_pb2.STATUS_SUCCESS, run / "config.ini")
        # TensorBoard keeps a tag's first metadata: the run's hyperparameters are those it started with
        started = tmp / "started.ini"
        started.write_bytes((run / "config.ini").read_bytes())
        r = subprocess.run([RF, "train", "--resume", str(run), "--set", "train.steps=8"], capture_output=True,
                           text=True)
        if ok(r.returncode == 0, "rangefinder train --resume runs", r.stdout + r.stderr):
            check_run_read_by_tensorboard(run, "rangefinder train --resume", api_pb2.STATUS_SUCCESS, started)

    # as tests/test_robustness.sh: lr 10, beta2 0.5 and a negligible eps turn the loss NaN
    diverged = tmp / "diverged"
    args = [RF, "train", "--config", str(tiny_ini), "--out", str(diverged)]
    for s in tiny[:9] + ["train.steps=300", "train.lr=10", "train.beta2=0.5", "train.eps=1e-30",
                         "train.log_every=50", "train.eval_every=0", "train.checkpoint_every=0"]:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if ok(r.returncode == 1, "a diverging rangefinder train run fails", r.stdout + r.stderr):
        check_run_read_by_tensorboard(diverged, "a diverged run", api_pb2.STATUS_FAILURE, diverged / "config.ini")

    resumed = tmp / "resumed"
    resumed.mkdir()
    r = subprocess.run([TOOL, "--write-resumed", str(resumed)], capture_output=True, text=True)
    if ok(r.returncode == 0, "a run resumed from before its last rows is written", r.stderr):
        check_run_read_by_tensorboard(resumed, "resumed from step 5 after rows to step 8", api_pb2.STATUS_SUCCESS,
                                      resumed / "config.ini")


def scalar_value(tag, value):
    return summary_pb2.Summary.Value(tag=tag, simple_value=value)


def tensor_value(tag, value, dtype, first):
    """As TensorFlow 2 and PyTorch's new_style scalars: a rank-0 tensor, the
    plugin named in the first value of the tag only."""
    if dtype == "float":
        t = tensor_pb2.TensorProto(dtype=1, float_val=[value], tensor_shape=tensor_shape_pb2.TensorShapeProto())
    else:
        t = tensor_pb2.TensorProto(dtype=2, tensor_content=struct.pack("<d", value),
                                   tensor_shape=tensor_shape_pb2.TensorShapeProto())
    v = summary_pb2.Summary.Value(tag=tag, tensor=t)
    if first:
        v.metadata.plugin_data.plugin_name = "scalars"
    return v


def dump(run_dir):
    r = subprocess.run([TOOL, "--dump", str(run_dir)], capture_output=True, text=True)
    points = {}
    for line in r.stdout.splitlines():
        tag, step, value = line.rsplit(" ", 2)
        points.setdefault(tag, []).append((int(step), float(value)))
    return r.returncode, points, r.stderr


def tensorboard_writer(tmp):
    run = tmp / "tb-run"
    w = EventFileWriter(str(run))
    want = {"Loss/train": [], "Accuracy/val": [], "lr": []}
    for step in range(1, 13):
        loss, acc, lr = 2.0 / step, 0.05 * step, 1e-3 * 0.9 ** step
        values = [scalar_value("Loss/train", loss)]
        want["Loss/train"].append((step, f32(loss)))
        if step % 3 == 0:
            values.append(tensor_value("Accuracy/val", acc, "float", step == 3))
            want["Accuracy/val"].append((step, f32(acc)))
        values.append(tensor_value("lr", lr, "double", step == 1))
        want["lr"].append((step, lr))
        if step == 2:   # a text summary: a string tensor of another plugin
            text = summary_pb2.Summary.Value(tag="notes", tensor=tensor_pb2.TensorProto(dtype=7, string_val=[b"hi"]))
            text.metadata.plugin_data.plugin_name = "text"
            values.append(text)
        w.add_event(event_pb2.Event(step=step, wall_time=1000.0 + step, summary=summary_pb2.Summary(value=values)))
    w.close()
    code, got, err = dump(run)
    ok(code == 0, "our reader reads TensorBoard's EventFileWriter file", err)
    ok(set(got) == set(want), "it finds the scalar tags and leaves the text summary out", f"{sorted(got)}")
    bad = [f"{tag}: ours {got.get(tag)} tensorboard {points}" for tag, points in want.items()
           if got.get(tag) != points]
    ok(not bad, "simple_value, float and double tensor scalars read back with equal values", "\n".join(bad))

    # a second file: the run restarted from step 8's checkpoint
    w = EventFileWriter(str(run), filename_suffix=".restart")
    w.add_event(event_pb2.Event(step=9, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)))
    w.add_event(event_pb2.Event(step=9, summary=summary_pb2.Summary(value=[scalar_value("Loss/train", 7.0)])))
    w.close()
    acc = event_accumulator.EventAccumulator(str(run))
    acc.Reload()
    theirs = [(e.step, e.value) for e in acc.Scalars("Loss/train")]
    code, got, err = dump(run)
    ok(code == 0 and got.get("Loss/train") == theirs and theirs[-1] == (9, 7.0) and len(theirs) == 9,
       "after a restart at step 9 our reader keeps the points TensorBoard keeps",
       f"ours {got.get('Loss/train')}\ntheirs {theirs}\n{err}")

    # the plots read the folder too: `rangefinder plot` draws it
    svg = run.parent / "tb-run.svg"
    r = subprocess.run([RF, "plot", str(run), "--out", str(svg)], capture_output=True, text=True)
    ok(r.returncode == 0 and "1 run)" in r.stdout and svg.stat().st_size > 0,
       "rangefinder plot draws a folder of TensorBoard's event files", r.stdout + r.stderr)

    # a damaged byte inside the first file's third record
    first = sorted(p for p in run.iterdir() if "tfevents" in p.name)[0]
    data = bytearray(first.read_bytes())
    offsets, at = [], 0
    while at < len(data):
        offsets.append(at)
        at += 12 + struct.unpack_from("<Q", data, at)[0] + 4
    data[offsets[2] + 14] ^= 0x10
    first.write_bytes(bytes(data))
    code, got, err = dump(run)
    ok(code != 0 and f"{first}: byte {offsets[2]}:" in err and "CRC-32C" in err,
       "a damaged record is reported with the file and its byte offset", err)


with tempfile.TemporaryDirectory(prefix="rf-tensorboard-") as t:
    our_writer(Path(t))
    tensorboard_writer(Path(t))
print(f"1..{count}")
sys.exit(1 if failed else 0)
