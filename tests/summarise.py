"""The counts of a test run, from meson's testlog.json files (setup.sh test).

Usage: summarise.py TESTLOG_JSON...

Test programs are counted by meson's result; the checks inside them by their
TAP lines in the logged stdout ("ok", "not ok", a "# SKIP" directive, a
"1..0 # SKIP" plan). A program whose result has no check of its kind (a crash
after passing checks, a skip without a TAP line) counts as one check more of
that kind, so the last line's failures are never fewer than the programs'.
Every skip is listed with its reason. The output ends with the line
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
CHECK = re.compile(r"(not )?ok\b\s*(?:\d+)?[^#]*(#\s*skip\S*\s*(.*))?", re.IGNORECASE)
PLAN_SKIP = re.compile(r"1\.\.0\s*#\s*skip\S*\s*(.*)", re.IGNORECASE)
OUTCOME = {"OK": "passed", "EXPECTEDFAIL": "passed", "SKIP": "skipped"}   # anything else failed


def checks_of(stdout):
    """(Counter of passed/failed/skipped, skip reasons) from TAP output."""
    counts, reasons = Counter(), []
    for line in stdout.splitlines():
        plan, check = PLAN_SKIP.match(line), CHECK.match(line)
        if plan:
            counts["skipped"] += 1
            reasons.append(plan.group(1))
        elif check and check.group(2):
            counts["skipped"] += 1
            reasons.append(check.group(3))
        elif check:
            counts["failed" if check.group(1) else "passed"] += 1
    return counts, [r.strip() or "no reason given" for r in reasons]


def must_run_in_ci(name):
    return name == "gui" or name.endswith("_torch")


def count(paths, ci):
    """(programs, checks, skips, ci_failures); skips and ci_failures map
    (test, reason) to [builds or runs, number of checks]."""
    programs, checks = Counter(), Counter()
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
            mine, reasons = checks_of(r.get("stdout") or "")
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
    return programs, checks, skips, ci_failures


def line(c):
    return f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"


def main():
    ci = os.environ.get("CI", "").lower() == "true"
    programs, checks, skips, ci_failures = count(sys.argv[1:], ci)
    for (name, reason), (builds, n) in skips.items():
        print(f"skipped: {name} in {', '.join(builds)} ({n} check{'s' * (n != 1)}): {reason}")
    for (name, reason), (builds, n) in ci_failures.items():
        print(f"CI: {name} skipped in {', '.join(builds)} ({n} check{'s' * (n != 1)}): {reason}; "
              "CI installs everything it needs, so this fails")
    print(f"test programs: {line(programs)}")
    print("checks (TAP lines; a program failed or skipped without one counts as one):")
    print(line(checks))
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
