"""Where a Node thread's CPU goes, from `perf script` output of a process run with --perf-basic-prof.

Each sample counts for the nearest JavaScript frame on its stack (the function whose code called into
V8, Node or the kernel), or, with no JavaScript frame at all, for its native leaf. Two profiles of two
servers doing the same work (InferScope and a floor) are compared in microseconds a request: give each
side's main-thread CPU per request from the bench's own table, and each row is its share of that.

    node --perf-basic-prof --import tsx bench/serve/h2load-grpc-floor.ts --rounds 2 --requests 60000 --only inferscope &
    perf record -F 2000 -g -t $! -o ours.data -- sleep 12; perf script -i ours.data > ours.script
    (the same with --only h2 into floor.script)
    python3 bench/serve/perf_attribution.py ours.script                                  # one side, shares
    python3 bench/serve/perf_attribution.py ours.script floor.script 76.3 58.5           # µs a request, side by side
"""
import collections
import re
import sys

JS_FRAME = re.compile(r'JS:[*~^]?(\S*) (\S+?):\d+:\d+')


def where(frame_file: str) -> str:
    f = re.sub(r'^.*?/(apps|packages|bench)/', r'\1/', frame_file.replace('file://', ''))
    return f


def samples(path: str):
    """yields each sample's stack, leaf first"""
    stack: list[str] = []
    with open(path, errors='replace') as lines:
        for line in lines:
            if not line.strip():
                if stack:
                    yield stack
                stack = []
            elif line[0] in ' \t':
                stack.append(line.strip())
    if stack:
        yield stack


def attribute(path: str):
    """(per function, per group, total): nearest JS frame, or the native leaf"""
    by_fn: collections.Counter = collections.Counter()
    by_group: collections.Counter = collections.Counter()
    total = 0
    for stack in samples(path):
        total += 1
        for frame in stack:
            m = JS_FRAME.search(frame)
            if m:
                f = where(m.group(2))
                by_fn[f'JS {m.group(1) or "(anon)"} {f}'] += 1
                if f.startswith(('apps/', 'packages/', 'bench/')):
                    by_group['the server\'s own code'] += 1
                elif 'node_modules/' in f:
                    by_group['node_modules ' + f.split('node_modules/')[-1].split('/')[0]] += 1
                else:
                    by_group['node ' + f.replace('node:internal/', '').split('/')[0]] += 1
                break
        else:
            parts = stack[0].split(None, 1)
            leaf = re.sub(r'\+0x[0-9a-f]+', '', parts[-1])
            by_fn['native ' + leaf[:80]] += 1
            by_group['native (no JavaScript frame)'] += 1
    return by_fn, by_group, total


def one(path: str) -> None:
    by_fn, by_group, total = attribute(path)
    print(f'{total} samples')
    for k, n in by_group.most_common(12):
        print(f'{100 * n / total:5.1f}% {k}')
    print('---')
    for k, n in by_fn.most_common(50):
        print(f'{100 * n / total:5.1f}% {k}')


def side_by_side(ours: str, floor: str, ours_us: float, floor_us: float) -> None:
    a_fn, a_group, a_total = attribute(ours)
    b_fn, b_group, b_total = attribute(floor)
    for title, a, b in (('by group', a_group, b_group), ('by function', a_fn, b_fn)):
        print(f'--- {title}: µs a request, ours - floor, ours, floor')
        rows = [(a[k] / a_total * ours_us, b[k] / b_total * floor_us, k) for k in set(a) | set(b)]
        rows.sort(key=lambda r: r[1] - r[0])
        for x, y, k in rows[:40]:
            print(f'{x - y:6.2f} {x:6.2f} {y:6.2f} {k}')


if __name__ == '__main__':
    if len(sys.argv) == 2:
        one(sys.argv[1])
    elif len(sys.argv) == 5:
        side_by_side(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit(__doc__)
