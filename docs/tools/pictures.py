"""Draws the site's pictures as SVG into docs/generated: a sequence diagram per mode, and the benchmark figures as
charts from the committed benchmark JSON (benchmarks/docs/benchmark-results.json). Standard library only."""
import json
import os
import statistics
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'docs', 'generated')
FONT = 'font-family="sans-serif" font-size="13"'

# Each mode: participants, then steps (from, to, label) or ('note', participant, text).
MODES = {
    'transactional': (['Client', 'Filter', 'Engine', 'Database', 'Handler'], [
        ('Client', 'Filter', 'POST + Idempotency-Key'),
        ('Filter', 'Engine', 'execute(owner, operation, key, fingerprint)'),
        ('Engine', 'Database', 'BEGIN; INSERT claim (unique key)'),
        ('Engine', 'Handler', 'run the handler in the same transaction'),
        ('Handler', 'Database', 'business writes'),
        ('Engine', 'Database', 'UPDATE record: stored answer; COMMIT'),
        ('Filter', 'Client', '201, the held-back answer'),
        ('note', 'Database', 'a crash before COMMIT rolls back claim and writes: the key is free'),
        ('Client', 'Filter', 'retry, same key'),
        ('Filter', 'Client', '201 again, Idempotent-Replayed: true'),
    ]),
    'leased': (['Client', 'Filter', 'Engine', 'Database', 'Provider'], [
        ('Client', 'Filter', 'POST + Idempotency-Key'),
        ('Filter', 'Engine', 'execute'),
        ('Engine', 'Database', 'claim with a lease and a fencing token; commit'),
        ('Engine', 'Provider', 'charge, with the attempt\'s downstream key'),
        ('note', 'Engine', 'heartbeats renew the lease while the call runs'),
        ('Engine', 'Database', 'complete if the token is still ours'),
        ('Filter', 'Client', '201'),
        ('note', 'Database', 'a crash leaves the lease to run out: a retry takes over, same downstream key'),
    ]),
    'joined': (['Broker', 'Container', 'Engine', 'Database', 'Listener'], [
        ('Broker', 'Container', 'a record (an event id)'),
        ('Container', 'Database', 'BEGIN, the listener\'s transaction'),
        ('Container', 'Engine', 'the inbox: execute(event id), joined'),
        ('Engine', 'Database', 'INSERT claim, in the same transaction'),
        ('Engine', 'Listener', 'run the listener'),
        ('Listener', 'Database', 'its writes'),
        ('Container', 'Database', 'COMMIT: claim, writes and outcome at once'),
        ('note', 'Database', 'a rollback undoes all three: the redelivery runs again'),
        ('Broker', 'Container', 'the same record, redelivered after a rebalance'),
        ('Container', 'Engine', 'execute: the stored outcome, the listener does not run'),
    ]),
    'asynchronous': (['Client', 'Filter', 'Database', 'Worker', 'Provider'], [
        ('Client', 'Filter', 'POST + Idempotency-Key, Prefer: respond-async'),
        ('Filter', 'Database', 'record + task, one transaction'),
        ('Filter', 'Client', '202, Location of the status resource'),
        ('Worker', 'Database', 'take the task'),
        ('Worker', 'Provider', 'the operation, with its downstream key'),
        ('Worker', 'Database', 'store the final answer'),
        ('Client', 'Filter', 'GET the status resource'),
        ('Filter', 'Client', 'the final answer, as a retry would get it'),
    ]),
}


def sequence(name, participants, steps):
    gap, top, row = 190, 50, 44
    width = gap * len(participants)
    height = top + row * (len(steps) + 1)
    x = {p: gap // 2 + i * gap for i, p in enumerate(participants)}
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" {FONT}>',
           '<defs><marker id="arrow" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto">'
           '<path d="M0,0 L10,4 L0,8 z" fill="#333"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for p in participants:
        svg.append(f'<rect x="{x[p] - 60}" y="8" width="120" height="28" rx="4" fill="#e8eaf6" stroke="#3f51b5"/>')
        svg.append(f'<text x="{x[p]}" y="27" text-anchor="middle">{escape(p)}</text>')
        svg.append(f'<line x1="{x[p]}" y1="36" x2="{x[p]}" y2="{height - 8}" stroke="#999" stroke-dasharray="4 4"/>')
    for i, step in enumerate(steps):
        y = top + row * (i + 1)
        if step[0] == 'note':
            svg.append(f'<text x="{x[step[1]]}" y="{y}" text-anchor="middle" fill="#8a4b00" font-style="italic">'
                       f'{escape(step[2])}</text>')
            continue
        a, b, label = step
        svg.append(f'<line x1="{x[a]}" y1="{y}" x2="{x[b]}" y2="{y}" stroke="#333" marker-end="url(#arrow)"/>')
        svg.append(f'<text x="{(x[a] + x[b]) / 2}" y="{y - 6}" text-anchor="middle">{escape(label)}</text>')
    svg.append('</svg>')
    write(f'mode-{name}.svg', svg)


LABELS = {'a': 'idempotency off', 'b': 'first executions', 'c': 'replays', 'g': 'first executions, Redis',
          'h': 'replays from Redis, 2nd instance'}


def throughput_chart(results):
    medians = {(r['scenario'], r['clients']): statistics.median(x['throughput'] for x in r['rounds'])
               for r in results['http'] if r['rounds']}
    clients = [16, 64]
    bars = [(s, c, medians[(s, c)] / medians[('a', c)]) for s in LABELS for c in clients if (s, c) in medians]
    top = max(ratio for _, _, ratio in bars)
    left, bar, width, height = 230, 22, 760, 40 + 2 * 28 * len(LABELS)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" {FONT}>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-weight="bold">Requests per second, as a share of "idempotency off" at the '
           f'same clients (medians; {escape(results["started"][:10])})</text>']
    y = 36
    for scenario, label in LABELS.items():
        svg.append(f'<text x="10" y="{y + 34}">{escape(scenario + ": " + label)}</text>')
        for c in clients:
            if (scenario, c) not in medians:
                continue
            ratio = medians[(scenario, c)] / medians[('a', c)]
            length = (width - left - 120) * ratio / top
            color = '#3f51b5' if c == 16 else '#9fa8da'
            svg.append(f'<rect x="{left}" y="{y}" width="{length:.1f}" height="{bar}" fill="{color}"/>')
            svg.append(f'<text x="{left + length + 6:.1f}" y="{y + 16}">{ratio:.2f} ({c} clients)</text>')
            y += bar + 4
        y += 8
    svg.append('</svg>')
    write('benchmark-throughput.svg', svg)


def write(name, lines):
    with open(os.path.join(OUT, name), 'w') as out:
        out.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    for mode, (participants, steps) in MODES.items():
        sequence(mode, participants, steps)
    with open(os.path.join(ROOT, 'benchmarks', 'docs', 'benchmark-results.json')) as f:
        throughput_chart(json.load(f))
    sys.exit(0)
