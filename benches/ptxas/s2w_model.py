"""Python model of ntt_stage2_warp's one-warp work (cuda/ntt/stage2_warp.cu), the layer-order code
and the study's variants, on exact field values mod BN254's r with arbitrary table entries
(sub_twiddles[0] = 1, every other entry and the mid table random): checks that every variant
stores the same value at the same address as the layer-order code. Models the lanes of one tile
pair (T x T x 2 groups, 2^LOG_L lanes a group), the register/lane swaps by shuffle semantics,
and each variant's order. Usage: python3 s2w_model.py"""
import random

p = 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001
rnd = random.Random(1)

def rev(x, bits):
    return int(format(x, f"0{bits}b")[::-1], 2) if bits else 0

def warp(LOG_Q, LOG_EL, ti, tj, log_p, tw, mid, mem, variant):
    """Returns {address: value} stored by the warp's 32 lanes (one tile pair)."""
    EL, LOG_L = 1 << LOG_EL, LOG_Q - LOG_EL
    LOG_T = (4 - LOG_L) // 2
    T, P = 1 << LOG_T, 1 << log_p
    R = P << LOG_Q
    lanes = []
    for lane in range(32):
        li = lane & ((1 << LOG_L) - 1)
        bb = (lane >> LOG_L) & (T - 1)
        aa = (lane >> (LOG_L + LOG_T)) & (T - 1)
        sel = lane >> (LOG_L + 2 * LOG_T)
        a = (tj if sel else ti) * T + aa
        b = (ti if sel else tj) * T + bb
        lanes.append(dict(li=li, sel=sel, a=a, b=b))
    out = {}
    skip = variant.get("skip_one", False)
    if variant.get("sequenced") and LOG_L == 0:
        for L in lanes:
            a, b = L["a"], L["b"]
            x = [None] * EL
            def dit(lo, log_n):
                if log_n == 0:
                    x[lo] = mem[a * R + rev(lo, LOG_Q) * P + b]
                    return
                if variant.get("upper_first"):
                    j = log_n - 1
                    H = 1 << j
                    dit(lo + H, log_n - 1)
                    t = [x[lo + H + i] if (j == 0 or (skip and i == 0)) else x[lo + H + i] * tw[i << (LOG_Q - 1 - j)] % p
                         for i in range(H)]
                    for i in range(H):
                        x[lo + H + i] = None  # dead until the sums and differences
                    dit(lo, log_n - 1)
                    for i in range(H):
                        x[lo + i], x[lo + H + i] = (x[lo + i] + t[i]) % p, (x[lo + i] - t[i]) % p
                    return
                dit(lo, log_n - 1)
                dit(lo + (1 << (log_n - 1)), log_n - 1)
                j = log_n - 1
                H = 1 << j
                for i in range(H):
                    r, r1 = lo + i, lo + i + H
                    t = x[r1] if (j == 0 or (skip and i == 0)) else x[r1] * tw[i << (LOG_Q - 1 - j)] % p
                    x[r], x[r1] = (x[r] + t) % p, (x[r] - t) % p
            # ZKNTT_S2W_STASH: registers EL/2-1, EL-1, EL/2-2, EL-2 leave for shared memory when their
            # half is done and come back at their pair of the last layer.
            stashed = [(EL if e & 1 else EL // 2) - 1 - e // 2 for e in range(variant.get("stash", 0) if LOG_Q >= 3 else 0)]
            smem = {}
            dit(0, LOG_Q - 1)
            for e, r in enumerate(stashed):
                if e % 2 == 0:
                    smem[e], x[r] = x[r], None
            dit(EL // 2, LOG_Q - 1)
            for e, r in enumerate(stashed):
                if e % 2 == 1:
                    smem[e], x[r] = x[r], None
            if L["sel"] and ti == tj:
                continue
            for i in range(EL // 2):
                r1 = i + EL // 2
                for e, r in enumerate(stashed):
                    if r % (EL // 2) == i:
                        x[r] = smem[e]
                t = x[r1] if (LOG_Q == 1 or (skip and i == 0)) else x[r1] * tw[i] % p
                x[i], x[r1] = (x[i] + t) % p, (x[i] - t) % p
                for k in (i, r1):
                    addr = b * R + k * P + a
                    assert addr not in out
                    out[addr] = x[k] * mid[b * k] % p
        return out
    # The layer-order code, all lanes in step (shuffles read the partner's registers).
    X = [[mem[L["a"] * R + rev(r | (L["li"] << LOG_EL), LOG_Q) * P + L["b"]] for r in range(EL)] for L in lanes]
    S = [[r | (L["li"] << LOG_EL) for r in range(EL)] for L in lanes]
    def swap(arr, i, lbit):
        new = [row[:] for row in arr]
        for n in range(32):
            up = (lanes[n]["li"] >> lbit) & 1
            m = n ^ (1 << lbit)
            for r in range(EL):
                if r >> i & 1:
                    continue
                r1 = r | (1 << i)
                if up:
                    new[n][r] = arr[m][r1]  # partner (up = 0) sent its hi
                else:
                    new[n][r1] = arr[m][r]  # partner (up = 1) sent its lo
        return new
    for j in range(LOG_Q):
        block, rb = j // LOG_EL, j % LOG_EL
        if block > 0 and rb == 0:
            for i in range(LOG_EL):
                if j + i >= LOG_Q:
                    break
                lbit = (block - 1) * LOG_EL + i
                X = swap(X, i, lbit)
                if variant.get("slots_computed"):
                    for n in range(32):
                        up = (lanes[n]["li"] >> lbit) & 1
                        s = S[n]
                        for r in range(EL):
                            if r >> i & 1:
                                continue
                            r1, flip = r | (1 << i), 1 << (LOG_EL + lbit)
                            if up:
                                s[r] = s[r1] ^ flip
                            else:
                                s[r1] = s[r] ^ flip
                else:
                    S = swap(S, i, lbit)
        for k in range(EL // 2):
            r = ((k >> rb) << (rb + 1)) | (k & ((1 << rb) - 1))
            r1 = r | (1 << rb)
            for n in range(32):
                pos = S[n][r] & ((1 << j) - 1)
                one = j == 0 or (skip and block == 0 and (r & ((1 << j) - 1)) == 0)
                if one and j > 0:
                    assert pos == 0, "skipped a twiddle that is not w^0"
                t = X[n][r1] if one else X[n][r1] * tw[pos << (LOG_Q - 1 - j)] % p
                X[n][r], X[n][r1] = (X[n][r] + t) % p, (X[n][r] - t) % p
    for n, L in enumerate(lanes):
        if L["sel"] and ti == tj:
            continue
        for r in range(EL):
            addr = L["b"] * R + S[n][r] * P + L["a"]
            assert addr not in out
            out[addr] = X[n][r] * mid[L["b"] * S[n][r]] % p
    return out

SHAPES = {1: 1, 2: 2, 3: 3, 4: 2, 5: 3, 6: 2}  # log Q -> log EL (PAIRS: one pair modelled)
VARIANTS = [dict(sequenced=True), dict(skip_one=True), dict(sequenced=True, skip_one=True),
            dict(slots_computed=True), dict(sequenced=True, skip_one=True, slots_computed=True),
            dict(sequenced=True, upper_first=True), dict(sequenced=True, skip_one=True, upper_first=True)] + \
           [dict(sequenced=True, skip_one=True, upper_first=True, stash=k) for k in (1, 2, 3, 4)] + \
           [dict(sequenced=True, stash=3)]
for LOG_Q, LOG_EL in SHAPES.items():
    LOG_L = LOG_Q - LOG_EL
    LOG_T = (4 - LOG_L) // 2
    log_p = LOG_T + 2
    Q, P = 1 << LOG_Q, 1 << log_p
    N = P * P * Q
    tw = [1] + [rnd.randrange(p) for _ in range(Q // 2 - 1)]
    mid = [rnd.randrange(p) for _ in range(N // P)]
    mem = [rnd.randrange(p) for _ in range(N)]
    nt = P >> LOG_T
    for ti, tj in [(0, 0), (1, 2), (nt - 1, nt - 1), (0, nt - 1)]:
        ref = warp(LOG_Q, LOG_EL, ti, tj, log_p, tw, mid, mem, {})
        for v in VARIANTS:
            got = warp(LOG_Q, LOG_EL, ti, tj, log_p, tw, mid, mem, v)
            assert got == ref, (LOG_Q, ti, tj, v)
    print(f"log Q {LOG_Q}: {len(VARIANTS)} variants store what the layer-order code stores")

# The model of the layer-order code against the definition, with true roots: entry k of group
# (a, *, b) stored at (b, k, a) is w_(N/P)^(b k) * sum_m x(a, m, b) w_Q^(m k).
g = pow(5, (p - 1) >> 28, p)  # a primitive 2^28-th root (5 generates BN254 Fr's group)
for LOG_Q, LOG_EL in SHAPES.items():
    LOG_L = LOG_Q - LOG_EL
    LOG_T = (4 - LOG_L) // 2
    log_p = LOG_T + 1
    Q, P = 1 << LOG_Q, 1 << log_p
    N, R = P * P * Q, P << LOG_Q
    wq, wm = pow(g, (1 << 28) // Q, p), pow(g, (1 << 28) // (N // P), p)
    tw = [pow(wq, t, p) for t in range(Q // 2)]
    mid = [pow(wm, e, p) for e in range(N // P)]
    mem = [rnd.randrange(p) for _ in range(N)]
    got = warp(LOG_Q, LOG_EL, 0, 1, log_p, tw, mid, mem, {})
    for addr, v in got.items():
        b, k, a = addr // R, (addr % R) // P, addr % P
        want = sum(mem[a * R + m * P + b] * pow(wq, m * k, p) for m in range(Q)) * pow(wm, b * k, p) % p
        assert v == want
    print(f"log Q {LOG_Q}: the layer-order model is the middle stage ({len(got)} stores)")
