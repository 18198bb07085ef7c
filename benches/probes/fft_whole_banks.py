#!/usr/bin/env python3
"""Shared-memory bank conflicts of fft_whole (cuda/small/fft_tc.cu: the fp16 FFT of 2^13..2^15, one
block per transform) for the padded layout pad_whole, lane by lane, and the search that chose it.

The transform lies column-major (word n2 N1 + n1); the six access patterns, as the kernel issues
them: the loads' stores (a warp instruction 4 rows x 8 16-byte words, each word's four points to
four columns), the column tiles' loads and stores (contiguous 256-word tiles, fft_small's lane
maps), the row tiles' loads and stores (tile word o of row tt at (o mod N2) N1 + tt), and the
contiguous copy-out. Prints the worst wavefronts per warp instruction of each pattern for every
shape the kernels instantiate, for pad_whole and for the best candidates of the search (sums of
shifted copies of the word index, so that the kernel can address base + immediate). No GPU needed:

    python3 benches/probes/fft_whole_banks.py            # pad_whole, then the 8 best candidates
"""
import itertools

SHAPES = [(7, 6), (7, 7), (8, 7)]  # (log N1, log N2) of 2^13, 2^14, 2^15 (model::split)


def wavefronts(addrs):
    """Scalar 4-byte accesses of 32 lanes: the most distinct words that share a bank."""
    banks = {}
    for a in set(addrs):
        banks.setdefault(a % 32, set()).add(a)
    return max(len(v) for v in banks.values())


def lanes():
    for lane in range(32):
        yield lane >> 2, lane & 3  # g, q


def patterns(n1, n2):
    N1, N2 = 1 << n1, 1 << n2
    N = N1 * N2
    # Loads' stores: lanes 8 x 16-byte words (columns 4 c4 + e) x 4 rows.
    c4s = N2 // 4
    for u in range((N1 // 4) * (c4s // 8)):
        row0, c40 = 4 * (u // (c4s // 8)), 8 * (u % (c4s // 8))
        for e in range(4):
            yield "load", [(4 * (c40 + (l & 7)) + e) * N1 + row0 + (l >> 3) for l in range(32)]
    # Column tiles (TILE(log N1) on 256 contiguous words).
    lr = n1 - 4
    r = 1 << lr
    for T in range(N // 256):
        for kb, j, nt in itertools.product(range(2), range(2), range(2)):
            yield "col ld", [256 * T + 16 * q + g + 16 * (8 * kb + 4 * j) + 8 * nt for g, q in lanes()]
        for h, nt in itertools.product(range(2), range(4)):
            yield "col st", [256 * T + ((g >> lr) << n1) + (g & (r - 1)) + (q << lr)
                             + (((8 * h) >> lr) << n1) + ((8 * h) & (r - 1)) + ((4 * nt) << lr)
                             for g, q in lanes()]
    # Row tiles (TILE(log N2), 256 / N2 rows at stride N1).
    lr2 = n2 - 4
    r2 = 1 << lr2
    rows = 256 >> n2
    row_at = lambda o, T: (o & (N2 - 1)) * N1 + T * rows + (o >> n2)
    for T in range(N // 256):
        for kb, j, nt in itertools.product(range(2), range(2), range(2)):
            yield "row ld", [row_at(16 * q + g + 16 * (8 * kb + 4 * j) + 8 * nt, T) for g, q in lanes()]
        for h, nt in itertools.product(range(2), range(4)):
            yield "row st", [row_at(((g >> lr2) << n2) + (g & (r2 - 1)) + (q << lr2)
                                    + (((8 * h) >> lr2) << n2) + ((8 * h) & (r2 - 1)) + ((4 * nt) << lr2), T)
                             for g, q in lanes()]
    # Copy-out: word tid + 256 i.
    for i in range(N // 32):
        yield "out", [32 * i + l for l in range(32)]


def evaluate(pad):
    """Worst wavefronts per pattern for every shape, and the words the layout needs (largest
    over the shapes, as a fraction of N)."""
    worst, overhead = [], 0.0
    for n1, n2 in SHAPES:
        w = {}
        for name, addrs in patterns(n1, n2):
            w[name] = max(w.get(name, 0), wavefronts([pad(a, n1) for a in addrs]))
        worst.append(w)
        n = 1 << (n1 + n2)
        overhead = max(overhead, (pad(n - 1, n1) + 1) / n)
    return worst, overhead


def pad_whole(a, n1):
    return a + 8 * (a >> 5) + (a >> n1) + 8 * (a >> (n1 + 5))


def main():
    worst, overhead = evaluate(pad_whole)
    print(f"pad_whole: words x{overhead:.3f}")
    for (n1, n2), w in zip(SHAPES, worst):
        print(f"  2^{n1 + n2} ({1 << n1} x {1 << n2}):", ", ".join(f"{k} {v}" for k, v in w.items()))
    found = []
    for A, B, C, D, s in itertools.product([0, 8], [0, 1, 4], [0, 8, 16], [0, 1, 8], [5, 6]):
        pad = lambda a, n1, A=A, B=B, C=C, D=D, s=s: a + A * (a >> 5) + B * (a >> n1) + C * (a >> (n1 + s)) + D * (a >> 8)
        worst, overhead = evaluate(pad)
        found.append((max(max(w.values()) for w in worst), sum(sum(w.values()) for w in worst), overhead,
                      f"a + {A}(a>>5) + {B}(a>>n1) + {C}(a>>(n1+{s})) + {D}(a>>8)"))
    print("best candidates (worst wavefronts, their sum over patterns and shapes, words):")
    for w, t, o, name in sorted(found)[:8]:
        print(f"  {name}: worst {w}, sum {t}, words x{o:.3f}")


if __name__ == "__main__":
    main()
