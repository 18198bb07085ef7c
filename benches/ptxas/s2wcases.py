"""ntt_stage2_warp's log Q cases in a symbol body (stage2_study.cu's s2w_*_any): the dispatch's two
jump tables (BRX on min(log_q - 1, 3), then on min(log_q - 4, 2)) read from the cubin's
.nv.constant2 section, and longpath.py from each case's entry. Usage: s2wcases.py CUBIN SASS KERNEL"""
import os
import struct
import subprocess
import sys

cubin, sass, kernel = sys.argv[1:4]
data = open(cubin, "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
stro = secs[shstrndx][4]
name = lambda n: data[stro + n:data.index(b"\0", stro + n)].decode()
by = {name(s[0]): s for s in secs}
c = by[".nv.constant2." + kernel]
words = list(struct.unpack_from("<%dI" % (c[5] // 4), data, c[4]))
r = by.get(".rela.nv.constant2." + kernel)
for j in range(r[5] // 24 if r else 0):
    off, _, add = struct.unpack_from("<QQq", data, r[4] + 24 * j)
    words[off // 4] = add
# Table 1: log Q = 1, 2, 3, (trap); table 2 (from word 4): log Q = 4, 5, 6.
cases = {1: words[0], 2: words[1], 3: words[2], 4: words[4], 5: words[5], 6: words[6]}
here = os.path.dirname(os.path.abspath(__file__))
for q, a in cases.items():
    out = subprocess.run([sys.executable, f"{here}/longpath.py", sass, kernel, f"{a:x}"], capture_output=True,
                         text=True).stdout.strip()
    print(f"log_q {q}: {out}")
