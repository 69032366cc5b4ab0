"""setup.sh's summary (tests/summarise.py) on made-up meson logs (TAP output).

Usage: test_summarise.py SUMMARISE_PY
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

count = 0
failed = 0


def ok(cond, what, output=""):
    global count, failed
    count += 1
    if not cond:
        failed += 1
    print(f"{'ok' if cond else 'not ok'} {count} - {what}", flush=True)
    if not cond:
        for text in output.splitlines():
            print(f"# {text}")


def testlog(root, build, tests, logbase="testlog", limits=None):
    """BUILD/meson-logs/LOGBASE.json holding (name, result, stdout[, duration])
    rows, and with limits ({name: seconds}) BUILD/meson-info/intro-tests.json."""
    logs = Path(root) / build / "meson-logs"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / f"{logbase}.json", "w") as f:
        for name, result, stdout, *duration in tests:
            row = {"name": f"rangefinder:suite / {name}", "result": result, "stdout": stdout}
            if duration:
                row["duration"] = duration[0]
            f.write(json.dumps(row) + "\n")
    if limits is not None:
        info = Path(root) / build / "meson-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "intro-tests.json").write_text(json.dumps([{"name": n, "timeout": t} for n, t in limits.items()]))
    return str(logs / f"{logbase}.json")


def summarise(script, paths, ci=False):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    p = subprocess.run([sys.executable, script, *paths], env=env, capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="rf_summarise.") as tmp:
        passing = [
            ("cli", "OK", "ok 1 - a\nok 2 - b # not a directive\nok 3 - c # SKIP no espeak-ng\n# diag\n1..3\n"),
            ("gui", "SKIP", "1..0 # SKIP xvfb-run is not installed\n"),
            ("safetensors_torch", "OK", "ok 1 - loads\n1..1\n"),
        ]
        runs = [testlog(tmp, "build", passing), testlog(tmp, "build-asan", passing)]

        rc, out = summarise(script, runs)
        last = out.splitlines()[-1] if out else ""
        ok(rc == 0 and last == "6 passed, 0 failed, 4 skipped",
           f"checks and skips are counted over both builds: '{last}', exit {rc}", out)
        ok("test programs: 4 passed, 0 failed, 2 skipped" in out, "test programs are counted", out)
        ok("skipped: gui in build, build-asan (2 checks): xvfb-run is not installed" in out
           and "skipped: cli in build, build-asan (2 checks): no espeak-ng" in out,
           "every skip is listed with its reason", out)

        rc, out = summarise(script, runs, ci=True)
        last = out.splitlines()[-1] if out else ""
        ok(rc == 1 and last == "6 passed, 2 failed, 2 skipped" and "CI: gui skipped in build, build-asan" in out,
           f"with CI=true a skipped GUI test fails: '{last}', exit {rc}", out)

        torch_skip = [("encoders_torch", "OK", "ok 1 - x\nok 2 - y # SKIP cannot import torch\n1..2\n")]
        rc, out = summarise(script, [testlog(tmp, "torch", torch_skip)], ci=True)
        last = out.splitlines()[-1] if out else ""
        ok(rc == 1 and last == "1 passed, 1 failed, 0 skipped" and "CI: encoders_torch skipped" in out,
           f"with CI=true a skip inside a *_torch test fails: '{last}', exit {rc}", out)
        rc, out = summarise(script, [testlog(tmp, "torch-local", torch_skip)])
        ok(rc == 0, f"without CI the same skip passes (exit {rc})", out)

        broken = [
            ("crashed", "ERROR", "ok 1 - a\nok 2 - b\n"),
            ("failing", "FAIL", "ok 1 - a\nnot ok 2 - b\nnot ok 3 - c\n1..3\n"),
            ("silent", "TIMEOUT", ""),
        ]
        rc, out = summarise(script, [testlog(tmp, "broken", broken)])
        last = out.splitlines()[-1] if out else ""
        ok(rc == 1 and last == "3 passed, 4 failed, 0 skipped" and "test programs: 0 passed, 3 failed" in out,
           f"a crash or timeout without a 'not ok' line counts as one failed check: '{last}', exit {rc}", out)
        ok("FAILED: crashed in broken (meson: ERROR)" in out and "FAILED: silent in broken (meson: TIMEOUT)" in out
           and "FAILED: failing in broken (meson: FAIL)\n    not ok 2 - b\n    not ok 3 - c\n" in out,
           "each failed program is named with its build, meson's result and its failing checks", out)

        todo = [("attribution", "EXPECTEDFAIL", "ok 1 - a\nnot ok 2 - talk # TODO under 80% here\n"
                 "ok 3 - b # TODO passes now\n1..3\n")]
        rc, out = summarise(script, [testlog(tmp, "todo", todo)], ci=True)
        last = out.splitlines()[-1] if out else ""
        ok(rc == 0 and last == "2 passed, 0 failed, 1 skipped"
           and "skipped: attribution in todo (1 check): known to fail: under 80% here" in out,
           f"a check known to fail (a TODO directive) is listed with the skips, not hidden, not a failure: '{last}', exit {rc}",
           out)

        rerun = testlog(tmp, "build", passing[:1], logbase="coretype-Haswell")
        rc, out = summarise(script, [runs[0], rerun])
        ok(rc == 0 and "skipped: cli in build, build (coretype-Haswell) (2 checks): no espeak-ng" in out,
           "a second run of a build (meson test --logbase) is named by its log", out)

        timed = [(f"t{i}", "OK", "ok 1 - a\n1..1\n", float(i)) for i in range(1, 8)]
        rc, out = summarise(script, [testlog(tmp, "timed", timed, limits={f"t{i}": 10 for i in range(1, 8)})])
        lines = out.splitlines()
        at = lines.index("the 5 slowest test runs:") if "the 5 slowest test runs:" in lines else -1
        ok(at >= 0 and [l.split(": ")[-1] for l in lines[at + 1:at + 6]] == [f"t{i} in timed" for i in range(7, 2, -1)]
           and "7.0 s of its 10 s limit (70%): t7 in timed" in lines[at + 1],
           "the five slowest runs are listed, slowest first, with their limits", out)
        ok(sum("over half its time limit" in l for l in lines) == 2 and "over half its time limit: 6.0 s" in out,
           "the runs over half their limit (6 and 7 s of 10) are named, no other", out)
        rc, out = summarise(script, [testlog(tmp, "untimed", timed[:2])])
        ok(rc == 0 and "2.0 s: t2 in untimed" in out and "over half" not in out,
           "without meson's introspection the times are listed without limits", out)
    print(f"1..{count}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
