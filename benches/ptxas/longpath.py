"""The longest path (by instructions) through a fully unrolled kernel from an address to an EXIT,
back edges not taken (each loop run once through, e.g. the tile-pair decode's corrections): the
static cost of one warp's work along its fullest branch (every store taken), with opcode counts.
A switch's case starts at its jump-table target (e.g. ntt_stage2_warp's log Q cases).
Usage: longpath.py SASS_FILE KERNEL [FROM_HEX]"""
import re
import sys

path, kernel = sys.argv[1], sys.argv[2]
start = int(sys.argv[3], 16) if len(sys.argv) > 3 else 0
ins, cur = [], None
for line in open(path):
    m = re.match(r"\s+Function : (\S+)", line)
    if m:
        cur = m.group(1)
        continue
    if cur != kernel:
        continue
    m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2)))
index = {a: k for k, (a, _) in enumerate(ins)}
OPS = ["IMAD.WIDE", "LDG", "STG", "SHFL", "LDS", "STS", "STL", "LDL"]

def op(t):
    w = t.split()
    return w[1] if w[0].startswith("@") else w[0]

def succ(k):
    a, t = ins[k]
    o, pred = op(t), t.startswith("@")
    if o == "EXIT" or o == "BRX" or o == "BPT" or o == "RET":
        return [k + 1] if pred and o == "EXIT" else []
    if o == "BRA":
        tgt = int(re.search(r"0x([0-9a-f]+)", t.split("BRA", 1)[1]).group(1), 16)
        out = [index[tgt]] if tgt > a else []
        return out + ([k + 1] if pred else [])
    return [k + 1]

sys.setrecursionlimit(100000)
NEG = -10**9
best = [None] * (len(ins) + 1)
nxt = [None] * (len(ins) + 1)
for k in range(len(ins) - 1, -1, -1):  # forward edges only: a DAG in address order
    a, t = ins[k]
    o = op(t)
    w = 0 if o == "NOP" else 1
    ss = [s for s in succ(k) if s < len(ins)]
    if not ss:
        best[k] = w if o in ("EXIT", "BRX", "BPT", "RET") else NEG
        continue
    s = max(ss, key=lambda s: best[s])
    best[k], nxt[k] = best[s] + w, s
k = index[start]
body = []
while k is not None:
    body.append(ins[k][1])
    k = nxt[k]
body = [t for t in body if op(t) != "NOP"]
c = [sum(1 for t in body if op(t) == o or op(t).startswith(o + ".")) for o in OPS]
print(f"{kernel}@{start:x}: {len(body)} instr  " + "  ".join(f"{o} {x}" for o, x in zip(OPS, c)))
