#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/):
small valid inputs of every format, plus a few near misses, so libFuzzer
starts from inputs that reach deep into each parser. Deterministic; run it
again after changing a seed and commit the result (Ogg files made by sox
carry a random stream serial, so they differ from run to run).

Usage: make_corpus.py [OUT]   (default: the corpus folder beside it)
"""
import gzip
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
CONFIGS = os.path.join(HERE, "..", "..", "data", "configs")


def put(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def safetensors(tensors, metadata=None):
    """tensors: [(name, shape, [floats])] -> bytes, laid out as the writer does."""
    header, blob = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, shape, values in tensors:
        data = struct.pack(f"<{len(values)}f", *values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + blob


def seeds_safetensors():
    put("safetensors", "two", safetensors([("a", [2, 3], [0.5 * i for i in range(6)]), ("b", [3], [1, 2, 3])],
                                          {"format": "test", "config": "{}"}))
    put("safetensors", "scalar-and-empty", safetensors([("s", [], [7.0]), ("e", [0, 4], []), ("f", [1, 1, 1, 1], [2])]))
    put("safetensors", "header-only", safetensors([]))
    put("safetensors", "overlap", struct.pack("<Q", 96) + json.dumps(
        {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
         "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode().ljust(96) + b"\0" * 4)


def checkpoint(crc=True, step="7"):
    """A checkpoint of the fuzz target's store: embed.weight [4, 3], head.bias [3]."""
    params = [("embed.weight", [4, 3], [0.1 * i - 0.5 for i in range(12)]), ("head.bias", [3], [0.0, 0.25, -0.25])]
    tensors = params + [("optimizer.m." + n, s, [0.01] * len(v)) for n, s, v in params] + \
        [("optimizer.v." + n, s, [0.001] * len(v)) for n, s, v in params]
    blob = b"".join(struct.pack(f"<{len(v)}f", *v) for _, _, v in tensors)
    meta = {"format": "rangefinder-checkpoint", "version": "1", "step": step, "optimizer": "adamw",
            "config": json.dumps({"data.task": "random", "model.dim": "8", "model.heads": "2", "train.lr": "0.001"})}
    if crc:
        meta["crc32"] = format(zlib.crc32(blob), "08x")
    return safetensors(tensors, meta)


def seeds_checkpoint():
    put("checkpoint", "crc", checkpoint())
    put("checkpoint", "no-crc", checkpoint(crc=False))
    put("checkpoint", "bad-step", checkpoint(crc=False, step="-1"))


def seeds_config():
    for name in ("default.ini", "listops-blrp.ini", "listops-talk.ini", "listops-maelre.ini", "fashion-mnist-full.ini"):
        with open(os.path.join(CONFIGS, name), "rb") as f:
            put("config_ini", name, f.read())
    put("config_ini", "strings", "[data]\ntask = ucr\npath = /data/UCR/Adiac\n[model]\nlmax = 1,3,7\nblocks = 1,2\n"
                                  "[train]\nseed = 18446744073709551615\nlr = 4e-4\ndevice = cuda:1\n")
    put("config_ini", "empty", "# only a comment\n\n")
    put("config_set", "numbers", "model.dim=32\nmodel.heads=4\ntrain.lr=1e-3\ntrain.clip=0\ntrain.seed=0")
    put("config_set", "strings", "data.task=lra_tsv\ndata.path=/tmp/x y\nmodel.encoder=talk\nmodel.lmax=1,2\n"
                                 "train.device=cuda:0")
    put("config_set", "json", json.dumps({"model.dim": "16", "data.task": "random", "train.beta2": "0.999"}))
    put("config_set", "malformed", "model.dim\n=3\nmodel.=1\n.x=2")


def idx(magic_ndim, dims, payload):
    return struct.pack(">I", 0x800 | magic_ndim) + b"".join(struct.pack(">I", d) for d in dims) + bytes(payload)


def seeds_idx():
    put("idx", "labels", idx(1, [5], [0, 1, 2, 3, 9]))
    put("idx", "images", idx(3, [2, 3, 3], range(18)))
    put("idx", "matrix", idx(2, [2, 2], [1, 2, 3, 4]))
    put("idx", "images.gz", gzip.compress(idx(3, [1, 2, 2], [5, 6, 7, 8]), mtime=0))
    put("idx", "truncated", idx(3, [100, 28, 28], range(10)))


LRA_ROWS = ["( ( ( [MAX 2 ) 3 ) ] )\t3", "( ( [MIN 4 ) ( ( [SM 1 ) 2 ) ] ) ] )\t3", "( ( [MED 1 ) 2 ) 9 ) X )\t5"]


def seeds_lra():
    table = "Source\tTarget\n" + "\n".join(LRA_ROWS) + "\n"
    put("lra_tsv", "same", table)
    put("lra_tsv", "three", table + "\f" + "Source\tTarget\n" + LRA_ROWS[0] + "\n\fSource\tTarget\r\n" + LRA_ROWS[2] + "\r\n")
    put("lra_tsv", "bad-target", "Source\tTarget\n[MAX 1 2 ]\t12\n")
    for i, row in enumerate(LRA_ROWS):
        put("listops", f"row{i}", row.split("\t")[0])
    put("listops", "nested", "[MAX 2 9 [MIN 4 7 ] 0 [SM 1 2 3 [MED 5 6 ] ] ]")
    put("listops", "unbalanced", "[MAX 2 [MIN 3 ]")


def seeds_ucr():
    put("ucr_tsv", "fixed", "1\t0.5\t-0.25\t1e-3\n2\t1.0\t2.0\t3.0\n1\t-1\t-2\t-3\n2\t0\t0\t0\n3\t4\t5\t6\n")
    put("ucr_tsv", "variable", "1\t0.5\tNaN\tNaN\n2\t1.0\t2.0\tNaN\n1\t1\t2\t3\n2\t4\t5\t6\n\f"
                                 "1\t9\tNaN\tNaN\n2\t8\t7\t6\n")
    put("ucr_tsv", "labels", "-1.5\t1\t2\n2.5e1\t3\t4\ninf\t5\t6\n")


def png(width, height, color_type, rows, palette=None):
    """A PNG (8-bit samples): color_type 0 gray, 2 RGB, 3 palette, 6 RGBA; rows of sample bytes."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\0" + bytes(r) for r in rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
    if palette:
        out += chunk(b"PLTE", bytes(palette))
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def seeds_image():
    # The last byte of an input picks the side and channels (fuzz_image.c);
    # PNG readers ignore bytes after IEND.
    put("image", "rgb.png", png(3, 2, 2, [[255, 0, 0, 0, 255, 0, 0, 0, 255], [9, 9, 9, 200, 100, 50, 1, 2, 3]]))
    put("image", "gray.png", png(4, 4, 0, [[i * 16 + j for j in range(4)] for i in range(4)]) + b"\x07")
    put("image", "rgba.png", png(2, 2, 6, [[1, 2, 3, 255, 4, 5, 6, 0], [7, 8, 9, 128, 10, 11, 12, 64]]) + b"\x1d")
    put("image", "palette.png", png(2, 1, 3, [[0, 1]], palette=[255, 0, 0, 0, 0, 255]))
    put("image", "huge-header.png", png(100000, 100000, 2, [[0, 0, 0]]))
    # image/small.jpg (12x10 RGB, quality 75) was written once by
    # gdk_pixbuf_save and is kept as it is; so are image/small.tiff and
    # image/small.ico (4x4, written once by Pillow 13). The formats are
    # sniffed from the content, so each reaches its own gdk-pixbuf loader.
    put("image", "text.xpm", '/* XPM */\nstatic char *x[] = {"2 2 2 1", "a c #FF0000", "b c None", "ab", "ba"};\n')
    put("image", "text.xbm", "#define x_width 4\n#define x_height 2\nstatic unsigned char x_bits[] = {0x05, 0x0a};\n")
    put("image", "text.ppm", "P3\n2 1\n255\n200 100 50 1 2 3\n")
    put("image", "binary.pgm", b"P5\n2 2\n255\n\x00\x40\x80\xff")
    put("image", "text.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="3" height="2">'
                             '<rect width="2" height="2" fill="#f00" fill-opacity="0.5"/></svg>\n')
    bmp_pixels = bytes([0, 0, 255, 0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0])   # 2x2, rows padded to 4 bytes
    put("image", "small.bmp", b"BM" + struct.pack("<IHHI", 54 + len(bmp_pixels), 0, 0, 54) +
        struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24, 0, len(bmp_pixels), 2835, 2835, 0, 0) + bmp_pixels)
    # The pictures gdk-pixbuf cannot write, from tests/data/formats (its README).
    formats = os.path.join(HERE, "..", "data", "formats")
    for name in ("anim.gif", "cmyk.jpg", "exif6.jpg", "grey16.png", "solid.webp", "solid.tga"):
        with open(os.path.join(formats, name), "rb") as f:
            put("image", name, f.read())


def wav(channels, rate, width, frames):
    """A PCM WAV through Python's wave module."""
    path = os.path.join(tempfile.mkdtemp(), "w.wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        data = b""
        for i in range(frames):
            for c in range(channels):
                v = math.sin(0.3 * i + c)
                data += struct.pack("<h", int(v * 20000)) if width == 2 else bytes([int(128 + v * 100)])
        w.writeframes(data)
    with open(path, "rb") as f:
        out = f.read()
    shutil.rmtree(os.path.dirname(path))
    return out


def float_wav(rate, values):
    """An IEEE float WAV (format 3), which Python's wave module does not write."""
    data = struct.pack(f"<{len(values)}f", *values)
    fmt = struct.pack("<HHIIHH", 3, 1, rate, rate * 4, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def seeds_audio():
    # The last byte picks the output rate and the samples kept (fuzz_audio.c).
    files = {
        "mono16k.wav": wav(1, 16000, 2, 400),
        "stereo44k.wav": wav(2, 44100, 2, 300),
        "u8-8k.wav": wav(1, 8000, 1, 200),
        "float22k.wav": float_wav(22050, [math.sin(0.1 * i) for i in range(300)]),
    }
    for name, data in files.items():
        put("audio", name, data)
        put("wav", name[:-len(".wav")], data[12:])   # fuzz_wav.c adds RIFF, the length and WAVE
    put("wav", "float-nan", float_wav(8000, [0.5, float("nan"), 0.25])[12:])
    if shutil.which("sox"):
        folder = tempfile.mkdtemp()
        src = os.path.join(folder, "in.wav")
        with open(src, "wb") as f:
            f.write(files["mono16k.wav"])
        for ext in ("flac", "ogg", "aiff", "au"):
            out = os.path.join(folder, "out." + ext)
            if subprocess.run(["sox", src, out], capture_output=True).returncode == 0:
                with open(out, "rb") as f:
                    put("audio", "mono16k." + ext, f.read())
        shutil.rmtree(folder)
    # audio/wavex-float-stereo96k, caf-8k, w64-8k, rf64-8k, aifc-float-8k,
    # au-ulaw-8k, opus-8k and mp3-8k (a 0.5 amplitude sine, 200 to 1200
    # frames) were written once by libsndfile 1.2 (sf_writef_float) and
    # are kept as they are: the formats sox does not write here.


def seeds_npy():
    put("npy", "2x3", bytes([2, 2, 3]) + struct.pack("<6f", *[0.5 * i for i in range(6)]))
    put("npy", "vector", bytes([1, 5]) + struct.pack("<5f", 1, -1, float("inf"), float("nan"), 0))
    put("npy", "scalar", bytes([0]) + struct.pack("<f", 3.25))
    put("npy", "wide", bytes([0x82]) + struct.pack("<qq", 2, 2) + struct.pack("<4f", 1, 2, 3, 4))
    put("npy", "negative", bytes([0x81]) + struct.pack("<q", -3))
    put("npy", "overflow", bytes([0x82]) + struct.pack("<qq", 1 << 40, 1 << 40))


def npy_file(descr, fortran, shape, data, major=1):
    """A .npy file as NumPy writes it: the header padded to a multiple of 64 bytes."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    field = 2 if major == 1 else 4
    start = 8 + field
    hlen = (start + len(text) + 1 + 63) // 64 * 64 - start
    head = b"\x93NUMPY" + bytes([major, 0]) + struct.pack("<H" if major == 1 else "<I", hlen)
    return head + (text.ljust(hlen - 1) + "\n").encode() + data


def seeds_npy_read():
    put("npy_read", "tokens-i2", npy_file("<i2", "False", [4, 5], struct.pack("<20h", *[i % 7 for i in range(20)])))
    put("npy_read", "tokens-be-fortran", npy_file(">i4", "True", [3, 4], struct.pack(">12i", *range(12))))
    put("npy_read", "tokens-u1", npy_file("|u1", "False", [2, 6], bytes(range(1, 13))))
    put("npy_read", "tokens-i8-v2", npy_file("<i8", "False", [2, 2], struct.pack("<4q", 1, 2, 3, 0), major=2))
    put("npy_read", "features-f4", npy_file("<f4", "False", [2, 3, 2], struct.pack("<12f", *[0.25 * i for i in range(12)])))
    put("npy_read", "features-f8-fortran", npy_file(">f8", "True", [2, 2, 3], struct.pack(">12d", *[-1.5 * i for i in range(12)])))
    put("npy_read", "features-nan", npy_file("<f4", "False", [2, 1, 2], struct.pack("<4f", 1, float("nan"), 2, 3)))
    put("npy_read", "negative-token", npy_file("|i1", "False", [2, 2], bytes([1, 0xfd, 2, 0])))
    put("npy_read", "vector-v3", npy_file("<f8", "False", [4], struct.pack("<4d", 1, 2, 3, 4), major=3))
    put("npy_read", "truncated", npy_file("<f4", "False", [3, 3], struct.pack("<5f", 1, 2, 3, 4, 5)))


def seeds_text_folder():
    put("text_folder", "three", b"\x20This was awful.\fA delight.\fMeh, fine\nreally.")
    put("text_folder", "bytes", b"\x05\x00\xff\xc3(\fok\f\xe2\x82\xac euro\fsecond")
    put("text_folder", "empty-parts", b"\x88\f\fonly\fone")
    put("text_folder", "eight", b"\x3f" + b"\f".join(b"file %d" % k for k in range(8)))


def crc32c(data):
    """CRC-32C (Castagnoli), bit by bit: the seeds are small."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def tfrecord(data):
    """One TFRecord: length, masked CRCs, as TensorBoard's event files hold them."""
    def masked(d):
        c = crc32c(d)
        return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data))


def pb_varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        byte, n = n & 0x7F, n >> 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def pb_field(number, value):
    """A protobuf field: int (varint), float (fixed32), bytes/str (length-delimited)."""
    if isinstance(value, float):
        return pb_varint(number << 3 | 5) + struct.pack("<f", value)
    if isinstance(value, int):
        return pb_varint(number << 3) + pb_varint(value)
    if isinstance(value, str):
        value = value.encode()
    return pb_varint(number << 3 | 2) + pb_varint(len(value)) + value


def tb_event(step, what):
    wall_time = pb_varint(1 << 3 | 1) + struct.pack("<d", 1000.0 + step)
    return tfrecord(wall_time + pb_field(2, step) + what)


def seeds_tb_events():
    version = tb_event(0, pb_field(3, "brain.Event:2"))
    scalars = b"".join(tb_event(step, pb_field(5, pb_field(1, pb_field(1, "train/loss") + pb_field(2, 2.0 / step))))
                       for step in range(1, 4))
    scalars_plugin = pb_field(9, pb_field(1, pb_field(1, "scalars")))
    float_tensor = pb_field(8, pb_field(1, 1) + pb_field(2, b"") + pb_field(5, struct.pack("<f", 0.25)))
    double_tensor = pb_field(8, pb_field(1, 2) + pb_field(4, struct.pack("<d", 0.125)))
    tensors = tb_event(4, pb_field(5, pb_field(1, pb_field(1, "Accuracy/val") + scalars_plugin + float_tensor))) + \
        tb_event(5, pb_field(5, pb_field(1, pb_field(1, "lr") + double_tensor)))
    restart = tb_event(2, pb_field(7, pb_field(1, 1)))
    hparams = tb_event(0, pb_field(5, pb_field(1, pb_field(1, "_hparams_/session_start_info") + pb_field(
        9, pb_field(1, pb_field(1, "hparams") + pb_field(2, pb_field(3, pb_field(1, pb_field(1, "model.dim") +
                                                                                   pb_field(2, b"\x11" + struct.pack("<d", 64.0))))))))))
    put("tb_events", "scalars", version + scalars)
    put("tb_events", "tensors-and-restart", version + scalars + tensors + restart)
    put("tb_events", "hparams", version + hparams)
    put("tb_events", "old-version", scalars + tb_event(1, pb_field(5, pb_field(1, pb_field(1, "train/loss") + pb_field(2, 9.0)))))


def seeds_npy_input():
    put("npy_input", "ids", npy_file("<i8", "False", [5], struct.pack("<5q", 2, 6, 7, 5, 5)))
    put("npy_input", "ids-u1", npy_file("|u1", "False", [3], bytes([1, 15, 3])))
    put("npy_input", "series-be", npy_file(">f8", "False", [4], struct.pack(">4d", 0.5, -1, 2, 3)))
    put("npy_input", "patches", npy_file("<f4", "False", [2, 4], struct.pack("<8f", *range(8))))
    put("npy_input", "patches-fortran", npy_file("<f4", "True", [2, 4], struct.pack("<8f", *range(8))))
    put("npy_input", "short", npy_file("<f4", "False", [2, 4], struct.pack("<3f", 1, 2, 3)))


def main():
    seeds_safetensors()
    seeds_checkpoint()
    seeds_config()
    seeds_idx()
    seeds_lra()
    seeds_ucr()
    seeds_image()
    seeds_audio()
    seeds_npy()
    seeds_npy_read()
    seeds_text_folder()
    seeds_npy_input()
    seeds_tb_events()


if __name__ == "__main__":
    main()
