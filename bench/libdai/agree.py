"""agree.py DAI_OUT LIFTED_JSON: the largest absolute difference between
libDAI's BP marginals (dai_bench's lines "label p0 p1 ...", variables in
label order) and lifted's (its JSON output, variables in the same order)."""
import json
import sys

dai = [list(map(float, l.split()[1:])) for l in open(sys.argv[1]).read().splitlines()[1:] if l.strip()]
lifted = json.load(open(sys.argv[2]))["marginals"]
if len(dai) != len(lifted):
    print("n/a")
    sys.exit(0)
worst = 0.0
for a, b in zip(dai, lifted):
    probs = b["probs"] if isinstance(b, dict) else b
    worst = max(worst, max(abs(x - y) for x, y in zip(a, probs)))
print("%.0e" % worst)
