#!/usr/bin/env python3
"""CPU emulation of the fragment and address logic of cuda/small/fft_tc.cu (v2; the large
kernel as of v5: radix-R tiles loaded from global memory in r_col column order; v6's fragments
derived from a quarter / half of the images', checked against the full ones), lane by lane.

mma.sync m16n8k16 is emulated from its documented fragment layout (PTX ISA, "Matrix fragments
for mma.m16n8k16 with floating point type"), in float64, so a wrong index, fragment order,
twiddle or shared-memory layout shows as an error far above 1e-15. Mirrors fft_small and
fft_large as written (padded layouts with per-thread bases plus immediates, the radix-R twiddle
as lane table times per-tile factor). Not in CI (the Rust model in
crates/zkntt-small/src/fft/model.rs is); run it here, no GPU needed, after touching the kernel's
indexing:

    python3 benches/probes/fft_tc_emu.py 1 4 5 8 9 12     # sizes (log2), forward and inverse
    python3 benches/probes/fft_tc_emu.py --banks          # bank conflicts of the padded layouts
"""

# ---- bank conflicts (4-byte banks, 32 per wavefront) ----
def conflicts(addrs_words, width):
    # width 1: 4B per lane, 32 lanes one wavefront; width 2: 8B, two half-warps; width 4: 16B,
    # four quarter-warps
    n=32//width
    groups=[addrs_words[i:i+n] for i in range(0,32,n)]
    worst=1
    for grp in groups:
        banks={}
        for a in grp:
            for w in range(width):
                banks.setdefault((a+w)%32,set()).add((a+w)//32)
        worst=max(worst,max(len(v) for v in banks.values()))
    return worst
lanes=[(l>>2,l&3) for l in range(32)]
def pats_in():
    P=[]
    for R in [2,4,8,16]:
        N=256*R
        for t in range(min(2,4096//N)):
          for tau in range(R):
            # (v5: the radix-R step's loads come from global memory; its store is one 16-byte
            # word per lane, columns 2q + {0, 1, 8, 9} = words 4q .. 4q + 3 in r_col order)
            for mt in range(2):
                P.append(('P2S%d'%R,4,[t*N+(a%R)*256+tau*(256//R)+16*(a//R)+r_col(2*q) for g,q in lanes for a in [g+8*mt]]))
    for run in range(3):
      for i in range(4):
        for nt in range(2):
          P.append(('P3L',1,[run*256+16*(q+4*i)+g+8*nt for g,q in lanes]))
    return P
def pats_out(P4=4):
    P=[]
    for R in [2,4,8,16]:
        N=256*R
        for t in range(min(2,4096//N)):
          for k1 in range(R):
            for mt in range(2):
              for nt2 in range(4):
                P.append(('P3S%d'%R,1,[t*N+k1+R*(g+8*mt+16*(4*nt2+q)) for g,q in lanes]))
    return P

# ---- the kernel ----
import cmath, math, random, sys
INV=False
def root(j,log_l,inv):
    L=1<<log_l; j&=L-1
    w=cmath.exp(-2j*math.pi*j/L)
    return w.conjugate() if inv else w
def g1_entry(log_r,m,k,inv):
    ka=8*(m>>4)+(m&7); co=(m>>3)&1
    a=8*(k>>4)+((k&15)>>1); ci=k&1
    if (ka>>log_r)!=(a>>log_r): return 0.0
    w=root(ka*a,log_r,inv)
    return (w.real if ci==0 else -w.imag) if co==0 else (w.imag if ci==0 else w.real)
def kb_of(pairs,nt,qq): return 2*qq+(nt&1)+8*(nt>>1) if pairs else 4*nt+qq
def g2_entry(log_c,k,n,pairs,inv):
    c=k>>4; b=k&15; co=n&1; kb=kb_of(pairs,n>>3,(n&7)>>1)
    if (kb>>log_c)!=(b>>log_c): return 0.0
    w=root(kb*b,log_c,inv)
    return (w.real if co==0 else w.imag) if c==0 else (-w.imag if co==0 else w.real)
# A-frag element coords (row,col) for lane, reg j, half h
def a_coord(lane,j,h):
    g,q=lane>>2,lane&3
    return (g+8*(j&1), 2*q+8*(j>>1)+h)
def b_coord(lane,j,h):
    g,q=lane>>2,lane&3
    return (2*q+8*j+h, g)
def c_coord(lane,e):
    g,q=lane>>2,lane&3
    return (g+8*(e>>1), 2*q+(e&1))
def mma(d,a,b):
    # d[lane][4], a[lane][4]=(lo,hi) pairs, b[lane][2]
    A=[[0]*16 for _ in range(16)]; B=[[0]*8 for _ in range(16)]
    for l in range(32):
        for j in range(4):
            for h in range(2):
                r,c=a_coord(l,j,h); A[r][c]=a[l][j][h]
        for j in range(2):
            for h in range(2):
                r,c=b_coord(l,j,h); B[r][c]=b[l][j][h]
    for l in range(32):
        for e in range(4):
            r,c=c_coord(l,e)
            d[l][e]+=sum(A[r][k]*B[k][c] for k in range(16))
def load_g1(log_r,inv):
    f={}
    for l in range(32):
        g,q=l>>2,l&3
        for mt in range(2):
            for kb in range(2):
                for j in range(4):
                    m=16*mt+g+8*(j&1); k=16*kb+2*q+8*(j>>1)
                    f[(l,mt,kb,j)]=(g1_entry(log_r,m,k,inv),g1_entry(log_r,m,k+1,inv))
    return f
def load_g2(log_c,pairs,inv):
    f={}
    for l in range(32):
        g,q=l>>2,l&3
        for nt in range(4):
            for kb in range(2):
                for j in range(2):
                    k=16*kb+2*q+8*j; n=8*nt+g
                    f[(l,nt,kb,j)]=(g2_entry(log_c,k,n,pairs,inv),g2_entry(log_c,k+1,n,pairs,inv))
    return f
# v6: the kernels read an image's block [0][0] of step 1's A operand and blocks nt = 0, 1 of step
# 2's B operand (DFT_16) and derive the rest (fft_tc.cu, step1_img / step2_img): R <= 8, the
# off-diagonal blocks zero and [1][1] = [0][0]; R = 16, [mt][kb] = (-1)^(mt q + kb g) [0][0];
# B's nt + 2 = nt with the high halves negated. derive_* build the fragments that way (the
# emulation uses them), check_derived compares them with the full matrices.
def derive_g1(g1,log_r):
    f={}
    for (l,mt,kb,j),(lo,hi) in g1.items():
        a=g1[(l,0,0,j)]
        if log_r<4: f[(l,mt,kb,j)]=a if mt==kb else (0.0,0.0)
        else:
            s=-1.0 if (mt*(l&3)+kb*(l>>2))&1 else 1.0
            f[(l,mt,kb,j)]=(s*a[0],s*a[1])
    return f
def derive_g2(g2):
    f={}
    for (l,nt,kb,j) in g2:
        lo,hi=g2[(l,nt&1,kb,j)]
        f[(l,nt,kb,j)]=(lo,hi) if nt<2 else (lo,-hi)
    return f
def check_derived():
    worst=0.0
    for inv in [False,True]:
        for log_r in range(5):
            g1=load_g1(log_r,inv); d=derive_g1(g1,log_r)
            worst=max(worst,max(abs(g1[k][h]-d[k][h]) for k in g1 for h in range(2)))
        g2=load_g2(4,False,inv); d=derive_g2(g2)
        worst=max(worst,max(abs(g2[k][h]-d[k][h]) for k in g2 for h in range(2)))
    print("derived fragments: max |difference| %.1e" % worst)
    return worst<1e-15
def step1(g1,x):
    acc={}
    for mt in range(2):
        for nt in range(2):
            d=[[0.0]*4 for _ in range(32)]
            for kb in range(2):
                mma(d,[[g1[(l,mt,kb,j)] for j in range(4)] for l in range(32)],[[x[l][(kb,nt,j)] for j in range(2)] for l in range(32)])
            for l in range(32): acc[(l,mt,nt)]=d[l]
    return acc
def to_a2(acc):
    a2={}
    for l in range(32):
        for j in range(4):
            c=acc[(l,j&1,j>>1)]
            a2[(l,0,j)]=(c[0],c[1]); a2[(l,1,j)]=(c[2],c[3])
    return a2
def step2(a2,g2):
    y={}
    for nt in range(4):
        d=[[0.0]*4 for _ in range(32)]
        for c in range(2):
            mma(d,[[a2[(l,c,j)] for j in range(4)] for l in range(32)],[[g2[(l,nt,c,j)] for j in range(2)] for l in range(32)])
        for l in range(32): y[(l,nt)]=d[l]
    return y
def fft_small(data,log_n,inv):
    total=len(data); out=[None]*total
    log_r=log_n-4 if log_n>4 else 0; log_c=log_n if log_n<4 else 4
    tiles=(total+255)//256
    if log_r==0:
        g2=load_g2(log_c,True,inv)
        for tile in range(tiles):
            base=tile*256; a2={}
            for l in range(32):
                g,q=l>>2,l&3
                w={}
                for mt in range(2):
                    for nt in range(2):
                        at=base+16*(g+8*mt)+8*nt+2*q
                        w[(mt,nt)]=(data[at],data[at+1]) if at<total else (0,0)
                for j in range(4):
                    v=w[(j&1,j>>1)]
                    a2[(l,0,j)]=(v[0].real,v[1].real); a2[(l,1,j)]=(v[0].imag,v[1].imag)
            y=step2(a2,g2)
            for l in range(32):
                g,q=l>>2,l&3
                for p in range(2):
                    for h in range(2):
                        at=base+16*(g+8*h)+8*p+2*q
                        if at<total:
                            out[at]=complex(y[(l,2*p)][2*h],y[(l,2*p)][2*h+1])
                            out[at+1]=complex(y[(l,2*p+1)][2*h],y[(l,2*p+1)][2*h+1])
        return out
    r=1<<log_r
    g1=derive_g1(load_g1(log_r,inv),log_r); g2=derive_g2(load_g2(4,False,inv))
    for tile in range(tiles):
        base=tile*256
        x=[{} for _ in range(32)]
        for l in range(32):
            g,q=l>>2,l&3
            for kb in range(2):
                for nt in range(2):
                    for j in range(2):
                        at=base+16*(8*kb+q+4*j)+8*nt+g
                        v=data[at] if at<total else 0
                        x[l][(kb,nt,j)]=(v.real,v.imag)
        acc=step1(g1,x)
        for l in range(32):
            g,q=l>>2,l&3
            for mt in range(2):
                for nt in range(2):
                    for e in range(2):
                        w=root((8*nt+2*q+e)*((8*mt+g)&(r-1)),log_n,inv)
                        c=acc[(l,mt,nt)]; z=complex(c[e],c[2+e])*w
                        c[e]=z.real; c[2+e]=z.imag
        y=step2(to_a2(acc),g2)
        for l in range(32):
            g,q=l>>2,l&3
            for nt in range(4):
                for h in range(2):
                    lane_st=((g>>log_r)<<log_n)+(g&(r-1))+(q<<log_r)
                    imm=(((8*h)>>log_r)<<log_n)+((8*h)&(r-1))+((4*nt)<<log_r)
                    at=base+lane_st+imm
                    if at<total: out[at]=complex(y[(l,nt)][2*h],y[(l,nt)][2*h+1])
    return out
def pad_mid(a): return a+8*(a>>5)+16*(a>>8)
def pad_out(a): return a+(a>>5)+2*(a>>7)
def pad_out_r(a,lr): return a+(a>>6) if lr==2 else pad_out(a)
def r_row(a,lr): return ((a&((1<<lr)-1))<<8)+16*(a>>lr)
def r_col(b): return 2*(b&7)+(b>>3)
def fft_large(data,log_n,inv):
    # mirrors fft_large in fft_tc.cu: padded layouts, per-thread bases + immediates,
    # radix-R twiddle = lane table (wr) x per-tile factor (wt)
    total=len(data); out=[None]*total
    log_r=log_n-8; r=1<<log_r
    # the radix step at R = 16 reads the full matrix (step1_img's FULL), the rest derive it
    g1=load_g1(log_r,inv) if log_r==4 else derive_g1(load_g1(log_r,inv),log_r)
    g16=derive_g1(load_g1(4,inv),4); g2=derive_g2(load_g2(4,False,inv))
    CH=4096
    IN_WORDS=pad_mid(CH-1)+4; OUT_WORDS=pad_out(CH-1)+1
    wr={}; w256={}
    for l in range(32):
        g,q=l>>2,l&3
        for i in range(8):
            mt,nt,e=i>>2,(i>>1)&1,i&1; ka=8*mt+g; b=8*nt+2*q+e
            w256[(i,l)]=root(b*ka,8,inv)
            wr[(i,l)]=root((16*(ka>>log_r)+r_col(b))*(ka&(r-1)),log_n,inv)
    for chunk in range((total+CH-1)//CH):
        base=chunk*CH; valid=min(CH,total-base)
        ins=[None]*IN_WORDS; outs=[None]*OUT_WORDS
        for warp in range(8):
          for s_ in range(2):
            T=warp+8*s_; t=T>>log_r; tau=T&(r-1)
            if (t<<log_n)>=valid: continue
            col0=(t<<log_n)+(tau<<(8-log_r))
            x=[{} for _ in range(32)]
            for l in range(32):
                g,q=l>>2,l&3
                b2l=col0+r_row(q,log_r)+r_col(g)  # global memory: one 8-byte word (columns g, g + 8)
                assert b2l%2==0
                for kb in range(2):
                    for j in range(2):
                        for nt in range(2):
                            v=data[base+b2l+r_row(8*kb+4*j,log_r)+nt]; x[l][(kb,nt,j)]=(v.real,v.imag)
            acc=step1(g1,x)
            for l in range(32):
                g,q=l>>2,l&3
                b2s=pad_mid(col0+r_row(g,log_r)+r_col(2*q))
                for mt in range(2):
                    wt=root((tau<<(8-log_r))*((8*mt+g)&(r-1)),log_n,inv)
                    for nt in range(2):
                        c=acc[(l,mt,nt)]
                        for e in range(2):
                            z=complex(c[e],c[2+e])*(wr[(4*mt+2*nt+e,l)]*wt); c[e]=z.real; c[2+e]=z.imag
                    p=b2s+pad_mid(r_row(8*mt,log_r)); assert p%4==0
                    for nt in range(2):
                        c=acc[(l,mt,nt)]
                        for e in range(2): ins[p+2*e+nt]=complex(c[e],c[2+e])
        for warp in range(8):
          for s_ in range(2):
            T=warp+8*s_; t=T>>log_r; tau=T&(r-1)
            if (t<<log_n)>=valid: continue
            x=[{} for _ in range(32)]
            for l in range(32):
                g,q=l>>2,l&3
                b3l=pad_mid(256*T+16*q+g)
                for kb in range(2):
                    for nt in range(2):
                        for j in range(2):
                            v=ins[b3l+pad_mid(16*(8*kb+4*j)+8*nt)]; x[l][(kb,nt,j)]=(v.real,v.imag)
            acc=step1(g16,x)
            for l in range(32):
                for mt in range(2):
                    for nt in range(2):
                        c=acc[(l,mt,nt)]
                        for e in range(2):
                            z=complex(c[e],c[2+e])*w256[(4*mt+2*nt+e,l)]; c[e]=z.real; c[2+e]=z.imag
            y=step2(to_a2(acc),g2)
            for l in range(32):
                g,q=l>>2,l&3
                b3s=pad_out_r((t<<log_n)+tau+((g+16*q)<<log_r),log_r)
                for nt in range(4):
                    for h in range(2):
                        outs[b3s+pad_out_r((8*h+64*nt)<<log_r,log_r)]=complex(y[(l,nt)][2*h],y[(l,nt)][2*h+1])
        for tid in range(256):
            for i in range(16):
                e=tid+256*i
                if e<valid: out[base+e]=outs[pad_out_r(tid,log_r)+pad_out_r(256*i,log_r)]
    return out
def dft(x,log_n,inv):
    N=1<<log_n; res=[]
    for t in range(0,len(x),N):
        xs=x[t:t+N]
        for k in range(N):
            res.append(sum(xs[n]*root(n*k,log_n,inv) for n in range(N)))
    return res
def check_banks():
    # worst bank-conflict degree of every access pattern of the large kernel
    res={}
    for name,w,ad in pats_in():
        res[name]=max(res.get(name,1),conflicts([pad_mid(a) for a in ad],w))
    for name,w,ad in pats_out():
        lr={'P3S2':1,'P3S4':2,'P3S8':3,'P3S16':4}[name]
        res[name]=max(res.get(name,1),conflicts([pad_out_r(a,lr) for a in ad],w))
    print(res)

if __name__ == "__main__":
    if sys.argv[1:] == ["--banks"]:
        check_banks()
        sys.exit(0)
    derived_ok=check_derived()
    rnd=random.Random(5)
    worst=0.0
    for log_n in [int(a) for a in sys.argv[1:]]:
        for inv in [False,True]:
            N=1<<log_n
            batch = max(1, (256//N)+1) if log_n<=8 else (1 if log_n>=11 else 3)
            x=[complex(rnd.uniform(-1,1),rnd.uniform(-1,1)) for _ in range(N*batch)]
            y=fft_small(x,log_n,inv) if log_n<=8 else fft_large(x,log_n,inv)
            want=dft(x,log_n,inv)
            assert all(v is not None for v in y), "unwritten output"
            err=math.sqrt(sum(abs(a-b)**2 for a,b in zip(y,want))/sum(abs(b)**2 for b in want))
            print("2^%d %s x %d: rel L2 %.2e" % (log_n, "inverse" if inv else "forward", batch, err))
            worst=max(worst,err)
    sys.exit(0 if worst < 1e-12 and derived_ok else 1)
