"""Per kernel of the study TU (stage2_study.cu): registers, spill bytes and SASS counts at each budget compiled by run.sh."""
import re
import sys

out, budgets = sys.argv[1], sys.argv[2:]
PROPS = re.compile(r"Function properties for (\S+)\n\s+(\d+) bytes stack frame, (\d+) bytes spill stores, "
                   r"(\d+) bytes spill loads\nptxas info\s+: Used (\d+) registers")
OPS = ["IMAD.WIDE", "LDS", "STS", "LDG", "STG", "SHFL", "BAR", "STL", "LDL"]

def sass_by_function(text):
    funcs, name = {}, None
    for line in text.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m and name:
            funcs[name].append(m.group(1))
    return funcs

print(f"{'kernel':14s} {'budget':>6s} {'regs':>4s} {'spillS':>6s} {'spillL':>6s} {'sass':>5s} " +
      " ".join(f"{o:>9s}" for o in OPS))
rows = {}
for b in budgets:
    props = {m.group(1): m.groups()[1:] for m in PROPS.finditer(open(f"{out}/ptxas_{b}.txt").read())}
    sass = sass_by_function(open(f"{out}/sass_{b}.txt").read())
    for k, (stack, ss, sl, regs) in props.items():
        ins = [i for i in sass.get(k, []) if not i.startswith("NOP")]
        def count(op):
            return sum(1 for i in ins if re.search(r"(^|\s|\})" + re.escape(op) + r"(\.|\s|$)", i.split(" ", 1)[0] if not i.startswith("@") else i.split(" ", 2)[1]))
        rows.setdefault(k, []).append((b, regs, ss, sl, len(ins), [count(o) for o in OPS]))
for k in sorted(rows):
    for b, regs, ss, sl, n, c in rows[k]:
        print(f"{k:14s} {b:>6s} {regs:>4s} {ss:>6s} {sl:>6s} {n:>5d} " + " ".join(f"{x:>9d}" for x in c))
