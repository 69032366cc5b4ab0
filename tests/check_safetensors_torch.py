"""PyTorch compatibility of Rangefinder's safetensors files (TAP output).

Usage: check_safetensors_torch.py TEST_CHECKPOINT_EXE

The `safetensors` package is not required: files are read and written here
with json + struct + numpy exactly as the format specifies
(https://huggingface.co/docs/safetensors), and the arrays become torch tensors.

1. The C writer's files (`TEST_CHECKPOINT_EXE --write-fixture DIR`, known
   values mirrored below) load into torch with the right names, shapes and
   bit-identical values; a checkpoint exposes every parameter under its own name,
   and its crc32 is Python's zlib.crc32 of its data section.
2. Files written here the way the reference implementation may lay them out
   (keys sorted, data in another order, unpadded header) are read by the C
   reader (`TEST_CHECKPOINT_EXE --dump FILE`) with identical values.
"""
import json
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

try:
    import numpy as np
    import torch
except ImportError as e:
    np = torch = None
    import_error = e

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tap_py import ok, plan  # noqa: E402


def load_file(path):
    """(tensors in header order, metadata) from a safetensors file."""
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", f"{name}: dtype {info['dtype']}"
        begin, end = info["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(arr.copy())
    return n, tensors, meta


def save_file(path, tensors, metadata, order):
    """Write a spec-conformant file: header keys sorted, data in `order`, no padding."""
    chunks, offsets, offset = [], {}, 0
    for name in order:
        arr = tensors[name].numpy()
        blob = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        offsets[name] = (offset, offset + len(blob))
        chunks.append(blob)
        offset += len(blob)
    dtypes = {torch.float32: "F32", torch.float16: "F16"}
    header = {"__metadata__": metadata}
    for name in sorted(tensors):
        t = tensors[name]
        header[name] = {"dtype": dtypes[t.dtype], "shape": list(t.shape), "data_offsets": list(offsets[name])}
    text = json.dumps(header, separators=(",", ":")).encode()
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def same_bits(a, b):
    return a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and a.numpy().tobytes() == b.numpy().tobytes()


def expected_fixture():
    f32 = torch.float32
    return {
        "a": torch.arange(6, dtype=f32).reshape(2, 3),
        "scalar": torch.tensor(3.5, dtype=f32),
        "four": (1.0 - 0.5 * torch.arange(24, dtype=f32)).reshape(2, 1, 3, 4),
        "vec": torch.tensor([-0.0, 1.5, -2.25, 2.0**100, float(np.finfo(np.float32).max)], dtype=f32),
        "empty": torch.zeros(0, 4, dtype=f32),
    }


# the base_specs of test_checkpoint.c, filled as its fill_store does
PARAMS = [("embed.weight", (10, 4)), ("layer0.attn.wq", (4, 4)), ("layer0.norm.gain", (4,)),
          ("head.bias", (3,)), ("scale", ())]


def expected_checkpoint():
    out = {}
    for k, (name, shape) in enumerate(PARAMS):
        i = torch.arange(int(np.prod(shape)), dtype=torch.float32)
        out[name] = (k + 0.5 * i).reshape(shape)
        out["optimizer.m." + name] = (-0.25 * i).reshape(shape)
        out["optimizer.v." + name] = (0.125 * i + k).reshape(shape)
    return out


def check_c_written(exe, tmp):
    run = subprocess.run([exe, "--write-fixture", tmp], capture_output=True, text=True)
    if not ok(run.returncode == 0, "C writer made the fixture files " + run.stderr.strip()):
        return
    n, tensors, meta = load_file(Path(tmp) / "tensors.safetensors")
    expected = expected_fixture()
    ok((8 + n) % 8 == 0, "tensor data starts 8-byte aligned")
    ok(list(tensors) == list(expected), f"names in the written order: {list(tensors)}")
    for name, want in expected.items():
        got = tensors.get(name)
        ok(got is not None and same_bits(got, want), f"torch tensor '{name}' shape {tuple(want.shape)} bit-identical")
    ok(meta == {"note": "written by test_checkpoint", "k": "v"}, "metadata")

    n, ckpt, meta = load_file(Path(tmp) / "checkpoint.safetensors")
    want = expected_checkpoint()
    ok(list(ckpt)[: len(PARAMS)] == [p for p, _ in PARAMS], "checkpoint lists the parameters first, in order")
    ok(set(ckpt) == set(want), "checkpoint holds each parameter and its optimizer.m./optimizer.v. moments")
    ok(all(name in ckpt and same_bits(ckpt[name], t) for name, t in want.items()), "checkpoint values bit-identical")
    ok(meta.get("format") == "rangefinder-checkpoint" and meta.get("version") == "1" and
       meta.get("step") == "1234" and meta.get("optimizer") == "adamw", "checkpoint metadata")
    ok(json.loads(meta.get("config", "null")).get("model.dim") == "48", "checkpoint config is JSON")
    raw = (Path(tmp) / "checkpoint.safetensors").read_bytes()
    crc = format(zlib.crc32(raw[8 + n :]), "08x")
    ok(meta.get("crc32") == crc, f"checkpoint crc32 {meta.get('crc32')} is Python's zlib.crc32 of the data ({crc})")
    state = {name: t for name, t in ckpt.items() if not name.startswith("optimizer.")}
    embed = torch.nn.Embedding(10, 4)
    embed.load_state_dict({"weight": state["embed.weight"]})
    ok(torch.equal(embed.weight.data, want["embed.weight"]), "a parameter loads into a torch module")


def dump(exe, path):
    run = subprocess.run([exe, "--dump", str(path)], capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr.strip()


def check_torch_written(exe, tmp):
    torch.manual_seed(0)
    tensors = {
        "weight": torch.randn(3, 4),
        "bias": torch.randn(4),
        "s": torch.tensor(2.5),
        "x4": torch.randn(1, 2, 3, 2),
        "z": torch.zeros(0, 3),
    }
    path = Path(tmp) / "from_torch.safetensors"
    save_file(path, tensors, {"format": "pt"}, order=["x4", "weight", "z", "s", "bias"])
    rc, out, err = dump(exe, path)
    if not ok(rc == 0, "C reader accepts a torch-written file " + err):
        return
    doc = json.loads(out)
    got = {t["name"]: torch.tensor(t["data"], dtype=torch.float32).reshape(t["shape"]) for t in doc["tensors"]}
    ok(set(got) == set(tensors), f"C reader sees the names {sorted(got)}")
    for name, want in tensors.items():
        ok(name in got and same_bits(got[name], want), f"C reader: '{name}' shape {tuple(want.shape)} bit-identical")
    ok(doc["metadata"].get("format") == "pt", "C reader sees the metadata")

    half = Path(tmp) / "half.safetensors"
    save_file(half, {"h": torch.randn(2, 2).half()}, {}, order=["h"])
    rc, _, err = dump(exe, half)
    ok(rc != 0 and err.startswith(str(half)) and "unsupported dtype F16 for tensor 'h'" in err,
       f"C reader rejects a torch float16 file: {err}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_safetensors_torch.py TEST_CHECKPOINT_EXE")
    if torch is None:
        print(f"ok 1 - PyTorch compatibility # SKIP cannot import torch/numpy ({import_error})")
        print("1..1")
        return 0
    with tempfile.TemporaryDirectory(prefix="rf_st_torch.") as tmp:
        check_c_written(sys.argv[1], tmp)
        check_torch_written(sys.argv[1], tmp)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
