#!/usr/bin/env python3
"""A ListOps checkpoint's answers grouped by each expression's outermost
operator, on LRA-format lines as they are and wrapped in one more [MAX ... ]
(which keeps every value: MAX of one operand is that operand).

A model that answers one class per outermost operator scores about 36% on
ListOps (`rangefinder eval` prints that rule's accuracy as
baseline_first_token) and drops to the majority class's 17% once every
expression is wrapped: docs/reproduction.md, "What 36% means".

    bench/listops_by_operator.py CHECKPOINT basic_test.tsv [N]

CHECKPOINT: any ListOps model; the TSV: LRA's format (Source<TAB>Target, a
header line); N: the first N rows (default 1000). RANGEFINDER names the
binary (default build/rangefinder); each call of `rangefinder predict`
classifies 50 expressions on one thread of the CPU. Rows whose wrapped form no longer
fits the model's length are left out of both columns.
"""
import collections
import json
import os
import subprocess
import sys


def outer(source):
    return next(t for t in source.split() if t.startswith('['))


def predict(binary, checkpoint, texts):
    labels = []
    for i in range(0, len(texts), 50):
        args = [binary, 'predict', '--checkpoint', checkpoint, '--set', 'train.threads=1', '--set', 'train.device=cpu']
        for t in texts[i:i + 50]:
            args += ['--text', t]
        done = subprocess.run(args, capture_output=True, text=True)
        labels += [json.loads(line).get('label') for line in done.stdout.splitlines()]
    return labels


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    checkpoint, tsv = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 1000
    binary = os.environ.get('RANGEFINDER', 'build/rangefinder')
    with open(tsv) as f:
        rows = [line.rstrip('\n').split('\t') for line in f][1:n + 1]
    plain = predict(binary, checkpoint, [s for s, _ in rows])
    wrapped = predict(binary, checkpoint, ['[MAX ' + s + ' ]' for s, _ in rows])
    groups = collections.defaultdict(lambda: {'n': 0, 'plain': 0, 'wrapped': 0,
                                              'answers': collections.Counter(),
                                              'answers_wrapped': collections.Counter()})
    for (source, target), p, w in zip(rows, plain, wrapped):
        if p is None or w is None:
            continue
        g = groups[outer(source)]
        g['n'] += 1
        g['plain'] += p == int(target)
        g['wrapped'] += w == int(target)
        g['answers'][p] += 1
        g['answers_wrapped'][w] += 1
    total = {k: sum(g[k] for g in groups.values()) for k in ('n', 'plain', 'wrapped')}
    if total['n'] == 0:
        sys.exit('no row was classified: run `rangefinder predict` on one of them to see why')
    print(f"| outermost operator | rows | accuracy | its answers | wrapped in [MAX ... ] | its answers |")
    print(f"|---|---|---|---|---|---|")
    for op in sorted(groups):
        g = groups[op]
        top = ', '.join(f'{k}: {v}' for k, v in g['answers'].most_common(3))
        top_w = ', '.join(f'{k}: {v}' for k, v in g['answers_wrapped'].most_common(3))
        print(f"| {op} | {g['n']} | {100 * g['plain'] / g['n']:.1f}% | {top} | "
              f"{100 * g['wrapped'] / g['n']:.1f}% | {top_w} |")
    print(f"| all | {total['n']} | {100 * total['plain'] / total['n']:.2f}% | | "
          f"{100 * total['wrapped'] / total['n']:.2f}% | |")


if __name__ == '__main__':
    main()
