#!/usr/bin/env python3
"""Shared-memory bank conflicts of fft_columns (cuda/small/fft_tc.cu: pass 1 of the fp16 FFT's
four-step split, 2^13..2^20) for a slab layout, lane by lane, and that the layout keeps the
kernel's base + immediate addressing exact.

A slab is C = 4096 / N1 adjacent columns of N1 rows, kept column-major (word a = col N1 + row);
the access patterns, as the kernel issues them: the slab's staging stores (thread i: row i / (C/4),
the four columns 4 (i % (C/4)) + e of one 16-byte global word, one 4-byte store each), the column
tiles' loads and stores (fft_small's lane maps on 256-word tiles of 256 / N1 whole columns), the
copy-out's reads (as the staging). Prints the worst wavefronts per warp instruction of each pattern
for pad_in (the layout before) and pad_col (the layout after), at N1 = 128 and 256. No GPU:

    python3 benches/probes/fft_columns_banks.py
"""


def pad_in(a, n1):
    return a + 8 * (a >> 5) + 8 * (a >> 8)


def col_stride(n1):
    """Words a padded column takes: past s(N1 - 1), = 2 mod 8 at N1 = 256 (four 16-byte columns
    of a staging row 8 banks apart), odd at N1 = 128 (eight columns 4 apart)."""
    N1 = 1 << n1
    need = (N1 - 1) + 8 * ((N1 - 1) >> 5) + 1
    want = (lambda p: p % 8 == 2) if n1 == 8 else (lambda p: p % 2 == 1)
    p = need
    while not want(p):
        p += 1
    return p


def pad_col(a, n1):
    N1 = 1 << n1
    row, col = a & (N1 - 1), a >> n1
    return col * col_stride(n1) + row + 8 * (row >> 5)


def wavefronts(addrs):
    banks = {}
    for a in set(addrs):
        banks.setdefault(a % 32, set()).add(a)
    return max(len(v) for v in banks.values())


def check(n1, pad):
    N1 = 1 << n1
    C = 4096 // N1
    c4s = C // 4
    log_r, r = n1 - 4, 1 << (n1 - 4)
    worst = {}
    exact = True
    # Staging stores and copy-out reads: thread i = tid + 256 k.
    for k in range(4096 // 4 // 256):
        for w in range(8):
            for e in range(4):
                addrs = []
                for lane in range(32):
                    i = 32 * w + lane + 256 * k
                    row, c4 = i // c4s, i % c4s
                    addrs.append(pad(((4 * c4 + e) << n1) + row, n1))
                worst["staging"] = max(worst.get("staging", 0), wavefronts(addrs))
    # Tiles: T = 0..15, loads at lane_ld + 16 (8 kb + 4 j) + 8 nt, stores at lane_st + o_h + nt c_nt.
    for T in range(16):
        for kb in range(2):
            for j in range(2):
                for nt in range(2):
                    imm = 16 * (8 * kb + 4 * j) + 8 * nt
                    addrs = []
                    for lane in range(32):
                        g, q = lane >> 2, lane & 3
                        base = 256 * T + 16 * q + g
                        a = pad(base, n1) + pad(imm, n1)
                        exact &= a == pad(base + imm, n1)
                        addrs.append(a)
                    worst["tile loads"] = max(worst.get("tile loads", 0), wavefronts(addrs))
        for h in range(2):
            o_h = (((8 * h) >> log_r) << n1) + ((8 * h) & (r - 1))
            for nt in range(4):
                imm = o_h + nt * (4 << log_r)
                addrs = []
                for lane in range(32):
                    g, q = lane >> 2, lane & 3
                    lane_st = ((g >> log_r) << n1) + (g & (r - 1)) + (q << log_r)
                    base = 256 * T + lane_st
                    a = pad(base, n1) + pad(imm, n1)
                    exact &= a == pad(base + imm, n1)
                    addrs.append(a)
                worst["tile stores"] = max(worst.get("tile stores", 0), wavefronts(addrs))
    words = {pad(a, n1) for a in range(4096)}
    injective = len(words) == 4096
    return worst, exact, injective, max(words) + 1


if __name__ == "__main__":
    for name, pad in (("pad_in", pad_in), ("pad_col", pad_col)):
        for n1 in (7, 8):
            worst, exact, inj, size = check(n1, pad)
            print(f"{name:8} N1 = {1 << n1:3}: wavefronts per instruction {worst}; base + immediate "
                  f"exact: {exact}; injective: {inj}; {size} words")
