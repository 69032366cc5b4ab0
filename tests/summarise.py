"""The counts of a test run, from meson's testlog.json files (setup.sh test).

Usage: summarise.py TESTLOG_JSON...

Test programs are counted by meson's result; the checks inside them by their
TAP lines in the logged stdout ("ok", "not ok", a "# SKIP" directive, a
"1..0 # SKIP" plan; a "not ok ... # TODO" check, one known to fail, is
listed with the skips, its reason prefixed "known to fail:"). A program whose result has no check of its kind (a crash
after passing checks, a skip without a TAP line) counts as one check more of
that kind, so the last line's failures are never fewer than the programs'.
Every failed program is named with its build, meson's result and its first
failing checks, every skip with its reason, and the five slowest test runs with
their time limits (from meson's introspection beside each log), so the
margin is visible; a run that took over half its limit is named as such. The
output ends with the line
"N passed, M failed, K skipped" (checks); the exit status is 1 when anything
failed.

With CI=true a skip in the GUI test or a torch reference test (*_torch) is a
failure: CI installs everything they need.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict

# As meson's TAP parser reads them: the name ends at the first '#'.
CHECK = re.compile(r"(not )?ok\b\s*(?:\d+)?[^#]*(#\s*(skip|todo)\S*\s*(.*))?", re.IGNORECASE)
PLAN_SKIP = re.compile(r"1\.\.0\s*#\s*skip\S*\s*(.*)", re.IGNORECASE)
OUTCOME = {"OK": "passed", "EXPECTEDFAIL": "passed", "SKIP": "skipped"}   # anything else failed


def checks_of(stdout):
    """(Counter of passed/failed/skipped, skip reasons, failing check lines)
    from TAP output."""
    counts, reasons, failing = Counter(), [], []
    for line in stdout.splitlines():
        plan, check = PLAN_SKIP.match(line), CHECK.match(line)
        if plan:
            counts["skipped"] += 1
            reasons.append(plan.group(1))
        elif check and check.group(3) and check.group(3).lower() == "todo":
            if check.group(1):
                counts["skipped"] += 1
                reasons.append("known to fail: " + check.group(4))
            else:
                counts["passed"] += 1
        elif check and check.group(2):
            counts["skipped"] += 1
            reasons.append(check.group(4))
        elif check:
            counts["failed" if check.group(1) else "passed"] += 1
            if check.group(1):
                failing.append(line.strip())
    return counts, [r.strip() or "no reason given" for r in reasons], failing


def must_run_in_ci(name):
    return name == "gui" or name.endswith("_torch")


def limits_of(path):
    """Each test's time limit in seconds, by name, from the build's
    meson-info/intro-tests.json beside BUILD/meson-logs/LOG.json ({} when
    that is missing or unreadable)."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    try:
        with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
            return {t["name"]: t.get("timeout") for t in json.load(f)}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def durations(paths):
    """(seconds, test, build or run, limit or None) for every logged test run."""
    runs = []
    for path in paths:
        build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))
        stem = os.path.basename(path).removesuffix(".json")
        if stem != "testlog":
            build += f" ({stem})"
        limits = limits_of(path)
        for line in open(path):
            r = json.loads(line)
            name = r["name"].split(" / ")[-1]
            if "duration" in r:
                runs.append((float(r["duration"]), name, build, limits.get(name) or None))
    return runs


def print_slowest(runs, n=5):
    """The n slowest runs with their limits, then every run past half its limit."""
    def text(seconds, name, build, limit):
        share = f" of its {limit:g} s limit ({100 * seconds / limit:.0f}%)" if limit else ""
        return f"{seconds:8.1f} s{share}: {name} in {build}"
    if not runs:
        return
    print(f"the {min(n, len(runs))} slowest test runs:")
    for run in sorted(runs, reverse=True)[:n]:
        print(text(*run))
    for run in sorted(runs, reverse=True):
        if run[3] and run[0] > run[3] / 2:
            print(f"over half its time limit: {text(*run).strip()}")


def count(paths, ci):
    """(programs, checks, skips, ci_failures, failures); skips and ci_failures
    map (test, reason) to [builds or runs, number of checks]; failures lists
    (test, build, meson's result, failing check lines) per failed program."""
    programs, checks, failures = Counter(), Counter(), []
    skips, ci_failures = defaultdict(lambda: [[], 0]), defaultdict(lambda: [[], 0])
    for path in paths:
        build = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))
        stem = os.path.basename(path).removesuffix(".json")
        if stem != "testlog":   # another run of that build (meson test --logbase)
            build += f" ({stem})"
        for line in open(path):
            r = json.loads(line)
            name = r["name"].split(" / ")[-1]
            kind = OUTCOME.get(r["result"], "failed")
            mine, reasons, failing = checks_of(r.get("stdout") or "")
            if mine[kind] == 0:
                mine[kind] = 1
                if kind == "skipped":
                    reasons.append(f"meson reports {r['result']}")
            table = skips
            if ci and must_run_in_ci(name) and mine["skipped"]:
                mine["failed"] += mine.pop("skipped")
                kind, table = "failed", ci_failures
            for reason in reasons:
                builds_n = table[(name, reason)]
                if build not in builds_n[0]:
                    builds_n[0].append(build)
                builds_n[1] += 1
            programs[kind] += 1
            checks.update(mine)
            if kind == "failed":
                failures.append((name, build, r["result"], failing))
    return programs, checks, skips, ci_failures, failures


def line(c):
    return f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"


def main():
    ci = os.environ.get("CI", "").lower() == "true"
    programs, checks, skips, ci_failures, failures = count(sys.argv[1:], ci)
    for name, build, result, failing in failures:
        print(f"FAILED: {name} in {build} (meson: {result})")
        for check in failing[:5]:
            print(f"    {check}")
        if len(failing) > 5:
            print(f"    ... and {len(failing) - 5} more failing checks")
    for (name, reason), (builds, n) in skips.items():
        print(f"skipped: {name} in {', '.join(builds)} ({n} check{'s' * (n != 1)}): {reason}")
    for (name, reason), (builds, n) in ci_failures.items():
        print(f"CI: {name} skipped in {', '.join(builds)} ({n} check{'s' * (n != 1)}): {reason}; "
              "CI installs everything it needs, so this fails")
    print_slowest(durations(sys.argv[1:]))
    print(f"test programs: {line(programs)}")
    print("checks (TAP lines; a program failed or skipped without one counts as one):")
    print(line(checks))
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
