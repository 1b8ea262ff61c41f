#!/usr/bin/env python3
"""wfomcs2mln: a model of the WFOMC tool (Wang, Kuželka et al.; its .wfomcs
or .mln syntax) in lifted's MLN syntax, with its unary evidence as a .db.

    bench/wfomc/wfomcs2mln.py MODEL.wfomcs OUT.mln [OUT.db]

The tool's sentence becomes hard formulas (top-level conjunctions and
universal quantifiers split off, so each line is a formula with free
variables), ExactlyOne[P, Q, ...] becomes "P(x) v Q(x) v ..." and the
pairwise exclusions, "\\forall X: (F)" / "\\exists X: (F)" /
"\\exists_{=k} X: (F)" become FORALL / EXIST / EXIST=k, variables X → x,
constants c → C (capitalised), weightings "w 1 P" become a unit formula
"ln(w) P(...)" (a false atom's weight must be 1), cardinality constraints
"|P| cmp k" (also "1 |P| cmp k", and < / > as <= / >= with k ∓ 1) lines of
their own. The predicates of the linear order axiom (LEQ, PRED, PREDk,
CIRCULAR_PRED) keep their names: lifted reserves the same ones. One domain
(its type keeps the tool's name); a domain given as a set of constants is
declared with them, an integer domain is noted in a comment (pass it with
--domain). Linear cardinality constraints (|A| - |B| = 0) keep their spelling,
which lifted reads too.
"""
import math
import re
import sys

TOKEN = re.compile(r"\s*(\\forall|\\exists_\{\s*(?:=|<=|>=|<|>)\s*\d+\s*\}|\\exists|<->|->|[~&|():,\[\]]|[A-Za-z_][A-Za-z0-9_]*)")


def tokenize(s):
    out, i = [], 0
    while i < len(s):
        if s[i].isspace():
            i += 1
            continue
        m = TOKEN.match(s, i)
        if not m:
            raise SyntaxError(f"cannot read {s[i:i + 30]!r}")
        out.append(m.group(1))
        i = m.end()
    return out


class Parser:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def eat(self, x=None):
        tok = self.peek()
        if x is not None and tok != x:
            raise SyntaxError(f"expected {x}, got {tok}")
        self.i += 1
        return tok

    def formula(self):
        return self.iff()

    def iff(self):
        a = self.imp()
        while self.peek() == "<->":
            self.eat()
            a = ("iff", a, self.imp())
        return a

    def imp(self):
        a = self.disj()
        if self.peek() == "->":
            self.eat()
            return ("imp", a, self.imp())
        return a

    def disj(self):
        a = self.conj()
        while self.peek() == "|":
            self.eat()
            a = ("or", a, self.conj())
        return a

    def conj(self):
        a = self.unary()
        while self.peek() == "&":
            self.eat()
            a = ("and", a, self.unary())
        return a

    def unary(self):
        tok = self.peek()
        if tok == "~":
            self.eat()
            return ("not", self.unary())
        if tok == "(":
            self.eat()
            a = self.formula()
            self.eat(")")
            return a
        if tok.startswith("\\forall") or tok.startswith("\\exists"):
            self.eat()
            v = self.eat()
            self.eat(":")
            body = self.unary()
            if tok == "\\forall":
                return ("forall", v, body)
            if tok == "\\exists":
                return ("exists", "", v, body)
            m = re.match(r"\\exists_\{\s*(=|<=|>=|<|>)\s*(\d+)\s*\}", tok)
            cmp, k = m.group(1), int(m.group(2))
            if cmp == "<":
                cmp, k = "<=", k - 1
            elif cmp == ">":
                cmp, k = ">=", k + 1
            return ("exists", f"{cmp}{k}", v, body)
        if tok == "ExactlyOne":
            self.eat()
            self.eat("[")
            preds = [self.eat()]
            while self.peek() == ",":
                self.eat()
                preds.append(self.eat())
            self.eat("]")
            return ("exactlyone", preds)
        name = self.eat()
        args = []
        if self.peek() == "(":
            self.eat()
            while self.peek() != ")":
                args.append(self.eat())
                if self.peek() == ",":
                    self.eat()
            self.eat(")")
        return ("atom", name, args)


def is_var(a):
    return len(a) == 1 and a.isupper()


def term(a):
    return a.lower() if is_var(a) else a[0].upper() + a[1:]


def emit(f, arity):
    k = f[0]
    if k == "atom":
        arity.setdefault(f[1], len(f[2]))
        if not f[2]:
            return f[1]
        return f"{f[1]}({', '.join(term(a) for a in f[2])})"
    if k == "not":
        return f"!({emit(f[1], arity)})"
    if k in ("and", "or", "imp", "iff"):
        op = {"and": " ^ ", "or": " v ", "imp": " => ", "iff": " <=> "}[k]
        return f"({emit(f[1], arity)}{op}{emit(f[2], arity)})"
    if k == "forall":
        return f"FORALL {term(f[1])} ({emit(f[2], arity)})"
    if k == "exists":
        return f"EXIST{f[1]} {term(f[2])} ({emit(f[3], arity)})"
    if k == "exactlyone":
        for p in f[1]:
            arity.setdefault(p, 1)
        return "(" + " ^ ".join(["(" + " v ".join(f"{p}(x)" for p in f[1]) + ")"] +
                                [f"(!{p}(x) v !{q}(x))" for i, p in enumerate(f[1]) for q in f[1][i + 1:]]) + ")"
    raise ValueError(k)


def split(f):
    """Top-level conjunctions and universal quantifiers: hard formulas."""
    if f[0] == "and":
        return split(f[1]) + split(f[2])
    if f[0] == "forall":
        return split(f[2])
    return [f]


CC = re.compile(r"^\s*(\d+\s+)?\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*(<=|>=|=|<|>)\s*(\d+)\s*$")


def convert(src, path):
    text = re.sub(r"#[^\n]*", "", src)
    lines = text.split("\n")
    di = next(i for i, l in enumerate(lines) if re.match(r"^\s*[A-Za-z_]\w*\s*=\s*(\d+|\{)", l))
    domline = lines[di]
    name, spec = [x.strip() for x in domline.split("=", 1)]
    head, tail = "\n".join(lines[:di]), lines[di + 1:]
    hard, soft = [], []
    if path.endswith(".mln"):
        for l in head.split("\n"):
            l = l.strip()
            if not l:
                continue
            if l.endswith("."):
                hard.append(Parser(tokenize(l[:-1])).formula())
            else:
                w, rest = l.split(None, 1)
                soft.append((float(w), Parser(tokenize(rest)).formula()))
    else:
        p = Parser(tokenize(head))
        hard.append(p.formula())
        if p.peek() is not None:
            raise SyntaxError(f"left over: {p.t[p.i:]}")
    weights, ccs, evidence = [], [], []
    for l in tail:
        l = l.strip()
        if not l:
            continue
        m = CC.match(l)
        if m:
            if m.group(1) and int(m.group(1)) != 1:
                raise ValueError(f"cardinality constraint with a coefficient: {l}")
            cmp, k = m.group(3), int(m.group(4))
            if cmp == "<":
                cmp, k = "<=", k - 1
            elif cmp == ">":
                cmp, k = ">=", k + 1
            ccs.append(f"|{m.group(2)}| {cmp} {k}")
            continue
        if "|" in l:
            # A linear constraint (|A| - |B| = 0, 2 |A| + |B| <= 5): the same
            # spelling in lifted's syntax; the tool's parentheses only group a
            # leading part of the sum, so they go.
            if not re.match(r"^[\d\s|A-Za-z_+\-()]*(<=|>=|!=|=|<|>)\s*\d+$", l):
                raise ValueError(f"cannot read the cardinality constraint {l}")
            ccs.append(l.replace("(", "").replace(")", ""))
            continue
        m = re.match(r"^([0-9.eE+-]+)\s+([0-9.eE+-]+)\s+([A-Za-z_]\w*)$", l)
        if m:
            weights.append((float(m.group(1)), float(m.group(2)), m.group(3)))
            continue
        for lit in re.findall(r"~?\s*[A-Za-z_]\w*\([^)]*\)", l):
            neg = lit.startswith("~")
            a = Parser(tokenize(lit.lstrip("~ "))).unary()
            evidence.append(("!" if neg else "") + f"{a[1]}({', '.join(term(x) for x in a[2])})")
    arity = {}
    out_f = []
    for f in hard:
        for g in split(f):
            out_f.append(emit(g, arity) + ".")
    for w, f in soft:
        out_f.append(f"{w!r} {emit(f, arity)}")
    for w1, w2, p in weights:
        if w2 != 1 or w1 <= 0:
            raise ValueError(f"weighting {w1} {w2} {p}: only a false weight of 1 is supported")
        n = arity.get(p, 1)
        args = ", ".join("xyz"[i] for i in range(n))
        out_f.append(f"{math.log(w1)!r} {p}({args})")
    for e in evidence:
        arity.setdefault(re.match(r"!?(\w+)", e).group(1), 1)
    decl = []
    if spec.startswith("{"):
        consts = [term(c.strip()) for c in spec.strip("{} ").split(",") if c.strip()]
        decl.append(f"{name} = {{{', '.join(consts)}}}")
    else:
        decl.append(f"// domain: {name} = {spec} (pass --domain {name}={spec})")
    for p, n in sorted(arity.items()):
        decl.append(f"{p}({', '.join([name] * n)})" if n else p)
    mln = "\n".join(decl) + "\n\n" + "\n".join(out_f + ccs) + "\n"
    db = "".join(e + "\n" for e in evidence)
    return mln, db


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src = open(sys.argv[1]).read()
    mln, db = convert(src, sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write(f"// {sys.argv[1].split('/models/')[-1]} of the WFOMC tool, by bench/wfomc/wfomcs2mln.py\n" + mln)
    if db:
        if len(sys.argv) < 4:
            sys.exit("the model has evidence: give OUT.db")
        with open(sys.argv[3], "w") as f:
            f.write(db)


if __name__ == "__main__":
    main()
