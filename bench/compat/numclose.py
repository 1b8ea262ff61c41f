"""numclose.py TOL A B: exit 0 if files A and B are equal once every number
in them is compared within TOL (|a - b| <= TOL * max(1, |a|, |b|)) and all
other text byte for byte; used by compare.sh --numtol."""
import re
import sys

NUM = re.compile(rb"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def split(data):
    parts, nums, last = [], [], 0
    for m in NUM.finditer(data):
        parts.append(data[last:m.start()])
        nums.append(m.group())
        last = m.end()
    parts.append(data[last:])
    return parts, nums


def main():
    tol = float(sys.argv[1])
    a, b = (open(p, "rb").read() for p in sys.argv[2:4])
    if a == b:
        return 0
    pa, na = split(a)
    pb, nb = split(b)
    if pa != pb or len(na) != len(nb):
        return 1
    for x, y in zip(na, nb):
        if x == y:
            continue
        fx, fy = float(x), float(y)
        if abs(fx - fy) > tol * max(1.0, abs(fx), abs(fy)):
            return 1
    return 0


sys.exit(main())
