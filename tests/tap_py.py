"""TAP for the Python tests: ok() numbers and prints each check, plan()
prints the plan and gives the exit status."""
count = 0
failed = 0


def ok(cond, what):
    global count, failed
    count += 1
    if not cond:
        failed += 1
    print(f"{'ok' if cond else 'not ok'} {count} - {what}", flush=True)
    return cond


def plan():
    print(f"1..{count}")
    return 1 if failed else 0
