//! CPU twins of the NTT kernels: the same tile, thread, register, lane and shared-memory moves as
//! `cuda/small/ntt_wsx.cu` and `cuda/small/ntt_block.cu`, the same butterflies in the same forms.
//! Tests run them against the references on the CPU, and the GPU against them bit for bit.

use crate::field::TILE_LOG;
use crate::modmul::{Modulus, reduce_once};
use crate::tables::Encoded;
use crate::{Error, ModMulForm, Result, SmallField};
use zkntt_gpu::Ordering;

const TILE: usize = 1 << TILE_LOG;
const THREADS: usize = 256;
const PER_THREAD: usize = TILE / THREADS;

/// What a kernel launch is given (the twin of `NttParams`).
#[derive(Debug, Clone, Copy)]
pub struct KernelArgs<'a> {
    pub field: SmallField,
    pub form: ModMulForm,
    pub log_n: u32,
    /// `tables::dif_twiddles` for the direction.
    pub twiddles: &'a Encoded,
    /// Every output times this (the inverse's 1/N), encoded.
    pub scale: Option<[u32; 2]>,
    /// 2-D twiddles (lo, hi) and log2 of the rows per matrix: output (t, k) times w^(t*k) (the
    /// panel's RN: see [`panel`]).
    pub post: Option<(&'a Encoded, &'a Encoded, u32)>,
    /// `NttParams::order` (the WSX and panel kernels): NN; NR, each transform's output k at
    /// position rev(k), the low log_n bits reversed; or RN, its input n read from position rev(n).
    pub order: Ordering,
}

struct Ctx<'a> {
    m: Modulus,
    args: KernelArgs<'a>,
    lazy: bool,
    harvey: bool,
}

impl Ctx<'_> {
    fn tw(&self, i: u32) -> [u32; 2] {
        self.args.twiddles.entries[i as usize]
    }
    fn mul(&self, x: u32, w: [u32; 2]) -> u32 {
        self.m.mul(self.args.form, x, w)
    }
    fn butterfly(&self, a: u32, c: u32, w: [u32; 2]) -> (u32, u32) {
        let q = self.m.q;
        if !self.lazy {
            (add_mod(a, c, q), self.mul(sub_mod(a, c, q), w))
        } else if self.harvey {
            (
                reduce_once(a.wrapping_add(c), 2 * q),
                self.mul(a.wrapping_sub(c).wrapping_add(2 * q), w),
            )
        } else {
            (
                add_mod(a, c, q),
                reduce_once(self.mul(a.wrapping_sub(c).wrapping_add(q), w), q),
            )
        }
    }
    /// The last layer: twiddle 1, no multiplication (`dif_butterfly_unit`).
    fn butterfly_unit(&self, a: u32, c: u32) -> (u32, u32) {
        let q = self.m.q;
        if self.lazy && self.harvey {
            (
                reduce_once(a.wrapping_add(c), 2 * q),
                reduce_once(a.wrapping_sub(c).wrapping_add(2 * q), 2 * q),
            )
        } else {
            (add_mod(a, c, q), sub_mod(a, c, q))
        }
    }
    fn half_butterfly(&self, own: u32, other: u32, upper: bool, w: [u32; 2]) -> u32 {
        let q = self.m.q;
        if !self.lazy {
            let x = if upper {
                sub_mod(other, own, q)
            } else {
                add_mod(own, other, q)
            };
            self.mul(x, w)
        } else if self.harvey {
            let x = if upper {
                other.wrapping_sub(own).wrapping_add(2 * q)
            } else {
                own.wrapping_add(other)
            };
            self.mul(x, w)
        } else {
            let x = if upper {
                other.wrapping_sub(own).wrapping_add(q)
            } else {
                add_mod(own, other, q)
            };
            reduce_once(self.mul(x, w), q)
        }
    }
    /// x times w^((t mod 2^log_rows) k) from the 2-D tables, canonical (the RN columns load's
    /// twiddle chain, `load_rn_twiddled`).
    fn twiddled(&self, x: u32, t: u64, k: u32) -> u32 {
        let q = self.m.q;
        let x = self.post(x, t, k);
        if self.lazy { reduce_once(x, q) } else { x }
    }
    /// The 2-D twiddle part of [`Ctx::finish`].
    fn post(&self, mut x: u32, t: u64, k: u32) -> u32 {
        let q = self.m.q;
        if let Some((lo, hi, log_rows)) = self.args.post {
            let e = ((t & ((1u64 << log_rows) - 1)) as u32).wrapping_mul(k);
            x = self.mul(x, lo.entries[(e & (TILE as u32 - 1)) as usize]);
            if self.lazy && !self.harvey {
                x = reduce_once(x, q);
            }
            x = self.mul(x, hi.entries[(e >> TILE_LOG) as usize]);
            if self.lazy && !self.harvey {
                x = reduce_once(x, q);
            }
        }
        x
    }
    fn finish(&self, x: u32, t: u64, k: u32) -> u32 {
        self.scale(self.post(x, t, k))
    }
    /// The scale and the final reduction of [`Ctx::finish`], without the 2-D twiddle.
    fn scale(&self, mut x: u32) -> u32 {
        let q = self.m.q;
        if let Some(s) = self.args.scale {
            x = self.mul(x, s);
        }
        if self.lazy { reduce_once(x, q) } else { x }
    }
}

fn add_mod(a: u32, b: u32, q: u32) -> u32 {
    reduce_once(a.wrapping_add(b), q)
}
fn sub_mod(a: u32, b: u32, q: u32) -> u32 {
    let d = a.wrapping_sub(b);
    d.min(d.wrapping_add(q))
}
fn bitrev(pos: u32, log_n: u32) -> u32 {
    if log_n == 0 {
        pos
    } else {
        pos.reverse_bits() >> (32 - log_n)
    }
}

fn setup(args: KernelArgs<'_>, len: usize) -> Result<Ctx<'_>> {
    args.field.check_log_n(args.log_n.min(TILE_LOG))?;
    if args.log_n > TILE_LOG {
        return Err(Error::SizeUnsupported {
            field: args.field.name(),
            log_n: args.log_n,
            max: TILE_LOG,
        });
    }
    if len % (1usize << args.log_n) != 0 {
        return Err(Error::NotWholeTransforms {
            len,
            log_n: args.log_n,
        });
    }
    // The tables as `tables` builds them: in the twin's form, at least 2^12 entries each (the
    // DIF table is indexed up to 2^12, a 2-D table's lo by e mod 2^12, its hi by e / 2^12).
    let mut tables = vec![("DIF twiddle", args.twiddles)];
    if let Some((lo, hi, _)) = args.post {
        tables.extend([("2-D twiddle (lo)", lo), ("2-D twiddle (hi)", hi)]);
    }
    for (table, t) in tables {
        if t.form != args.form {
            return Err(Error::TableForm {
                table,
                got: t.form.name(),
                expected: args.form.name(),
            });
        }
        if t.entries.len() < 1 << TILE_LOG {
            return Err(Error::LengthMismatch {
                expected: 1 << TILE_LOG,
                got: t.entries.len(),
            });
        }
    }
    Ok(Ctx {
        m: Modulus::new(args.field.modulus())?,
        args,
        lazy: args.form.is_lazy(),
        harvey: args.field.harvey_lazy(),
    })
}

/// `slot` of ntt_wsx.cu: bits 5..8 of the tile position flip bits 0..4 (bank-conflict swizzle).
pub(crate) fn slot(p: u32) -> usize {
    let h =
        (((p >> 5) & 1) * 3) ^ (((p >> 6) & 1) * 5) ^ (((p >> 7) & 1) * 9) ^ (((p >> 8) & 1) * 17);
    (p ^ h) as usize
}
fn m2_index(lane: u32, warp: u32, r: u32) -> u32 {
    (lane & 15) | (r << 4) | ((lane >> 4) << 8) | (warp << 9)
}
/// M3: registers hold tile bits 0..3, lanes 0-15 bits 4..7.
fn m3_index(lane: u32, warp: u32, r: u32) -> u32 {
    r | ((lane & 15) << 4) | ((lane >> 4) << 8) | (warp << 9)
}

/// The WSX kernel (`small_ntt_wsx_*`) on `data` (whole transforms of 2^log_n, natural order,
/// in place).
pub fn wsx(args: KernelArgs<'_>, data: &mut [u32]) -> Result<()> {
    wsx_with(args, data, true)
}

/// The ablation `small_ntt_wsx_half_*`: the same kernel with the first design's shuffle layers
/// (every register shuffled, half butterflies in both lanes).
pub fn wsx_half(args: KernelArgs<'_>, data: &mut [u32]) -> Result<()> {
    wsx_with(args, data, false)
}

fn wsx_with(args: KernelArgs<'_>, data: &mut [u32], exchange: bool) -> Result<()> {
    let c = setup(args, data.len())?;
    let log_n = args.log_n;
    let low = (1u32 << log_n) - 1;
    for (tile, chunk) in data.chunks_mut(TILE).enumerate() {
        let valid = chunk.len() as u32;
        // RN: tile position g loads the input's word out_pos(g), the low log_n bits reversed.
        let rn = args.order == Ordering::RN;
        let res = tile_layers(&c, exchange, |g| {
            let at = if rn {
                (g & !low) | bitrev(g & low, log_n)
            } else {
                g
            };
            if g < valid { chunk[at as usize] } else { 0 }
        });
        let first = ((tile * TILE) >> log_n) as u64;
        for (g, out) in chunk.iter_mut().enumerate() {
            let g = g as u32;
            // NR: the tile stays in the DIF's order, position g holding output rev(g).
            let at = if args.order == Ordering::NR {
                (g & !low) | bitrev(g & low, log_n)
            } else {
                g
            };
            *out = c.finish(res[at as usize], first + (g >> log_n) as u64, g & low);
        }
    }
    Ok(())
}

/// The layers of one tile (`wsx::layers` of wsx_tile.cuh): `load(g)` gives tile position g as the
/// kernel loads it; returns the outputs in natural order, before `finish`.
fn tile_layers(c: &Ctx<'_>, exchange: bool, load: impl Fn(u32) -> u32) -> Vec<u32> {
    let log_n = c.args.log_n;
    let low = (1u32 << log_n) - 1;
    let mut smem = vec![0u32; TILE];
    let mut v = [[0u32; PER_THREAD]; THREADS];
    if log_n > 8 {
        for (tid, regs) in v.iter_mut().enumerate() {
            for (r, x) in regs.iter_mut().enumerate() {
                *x = load(tid as u32 | (r as u32) << 8);
            }
        }
        for rb in (0..4u32).rev() {
            let b = rb + 8;
            if b >= log_n {
                continue;
            }
            for (tid, regs) in v.iter_mut().enumerate() {
                for lo in (0..PER_THREAD as u32).filter(|lo| lo & (1 << rb) == 0) {
                    let j = (tid as u32 | lo << 8) & ((1 << b) - 1);
                    let hi = (lo | 1 << rb) as usize;
                    (regs[lo as usize], regs[hi]) =
                        c.butterfly(regs[lo as usize], regs[hi], c.tw((1 << b) | j));
                }
            }
        }
        for (tid, regs) in v.iter().enumerate() {
            for (r, &x) in regs.iter().enumerate() {
                smem[slot(tid as u32 | (r as u32) << 8)] = x;
            }
        }
        for (tid, regs) in v.iter_mut().enumerate() {
            let (lane, warp) = (tid as u32 & 31, tid as u32 >> 5);
            for (r, x) in regs.iter_mut().enumerate() {
                *x = smem[slot(m2_index(lane, warp, r as u32))];
            }
        }
    } else {
        for (tid, regs) in v.iter_mut().enumerate() {
            let (lane, warp) = (tid as u32 & 31, tid as u32 >> 5);
            for (r, x) in regs.iter_mut().enumerate() {
                *x = load(m2_index(lane, warp, r as u32));
            }
        }
    }
    for rb in (0..4u32).rev() {
        let b = rb + 4;
        if b >= log_n {
            continue;
        }
        for (tid, regs) in v.iter_mut().enumerate() {
            let lane = tid as u32 & 31;
            for lo in (0..PER_THREAD as u32).filter(|lo| lo & (1 << rb) == 0) {
                let j = ((lane & 15) | lo << 4) & ((1 << b) - 1);
                let hi = (lo | 1 << rb) as usize;
                (regs[lo as usize], regs[hi]) =
                    c.butterfly(regs[lo as usize], regs[hi], c.tw((1 << b) | j));
            }
        }
    }
    for b in (0..4u32).rev() {
        let mask = 1u32 << b;
        let before = v;
        if exchange {
            // Lane bit b <-> register bit b: the lower lane receives its partner's v[r] into
            // v[r | mask], the upper lane its partner's v[r | mask] into v[r]; every layer.
            for (tid, regs) in v.iter_mut().enumerate() {
                let upper = tid as u32 & mask != 0;
                let partner = &before[tid ^ mask as usize];
                for r in (0..PER_THREAD).filter(|r| r & mask as usize == 0) {
                    if upper {
                        regs[r] = partner[r | mask as usize];
                    } else {
                        regs[r | mask as usize] = partner[r];
                    }
                }
            }
            if b >= log_n {
                continue;
            }
            for (tid, regs) in v.iter_mut().enumerate() {
                let j = tid as u32 & 31 & (mask - 1);
                for r in (0..PER_THREAD).filter(|r| r & mask as usize == 0) {
                    let hi = r | mask as usize;
                    (regs[r], regs[hi]) = if b == 0 {
                        c.butterfly_unit(regs[r], regs[hi])
                    } else {
                        c.butterfly(regs[r], regs[hi], c.tw(mask | j))
                    };
                }
            }
        } else {
            if b >= log_n {
                continue;
            }
            for (tid, regs) in v.iter_mut().enumerate() {
                let lane = tid as u32 & 31;
                let upper = lane & mask != 0;
                let j = lane & (mask - 1);
                let w = c.tw(mask | if upper { j } else { 0 });
                let partner = (tid as u32 ^ mask) as usize;
                for (r, x) in regs.iter_mut().enumerate() {
                    *x = c.half_butterfly(*x, before[partner][r], upper, w);
                }
            }
        }
    }
    for (tid, regs) in v.iter().enumerate() {
        let (lane, warp) = (tid as u32 & 31, tid as u32 >> 5);
        for (r, &x) in regs.iter().enumerate() {
            let g = if exchange {
                m3_index(lane, warp, r as u32)
            } else {
                m2_index(lane, warp, r as u32)
            };
            smem[slot((g & !low) | bitrev(g & low, log_n))] = x;
        }
    }
    (0..TILE as u32).map(|g| smem[slot(g)]).collect()
}

/// Where element e of transform u lies in a panel pass's input or output (`word` of
/// ntt_panel.cu): word `(u >> log_g) << log_m | (u mod 2^log_g) << t | e << e`.
#[derive(Debug, Clone, Copy)]
pub struct PanelLayout {
    pub t: u32,
    pub e: u32,
}

/// The panel kernel (`small_ntt_panel_*`): `input.len() >> log_n` transforms of 2^log_n (log_n
/// of `args`), element e of transform u read at `input`'s layout and written, after `finish`, at
/// `out`'s, in matrices of 2^log_m words holding 2^log_g transforms each. The panel's words move
/// as the kernel moves them: panels of `ntt::panel_tiles` tiles, loaded in the order contiguous
/// in `input`, each tile through the WSX layers in place, stored in the order contiguous in `out`.
/// In NR (`args.order`) output e of transform u goes to position rev(e) of `out`'s layout,
/// which must be columns (as the NR kernel); in RN (the RN kernel) input e is read from
/// position rev(e) of `input`'s, and the 2-D twiddle w^(n2 k) takes n2 = rev(u mod 2^log_rows)
/// on the store, or with columns in, w^((u mod 2^log_rows) e) on the load.
#[allow(clippy::too_many_arguments)]
pub fn panel(
    args: KernelArgs<'_>,
    input: &[u32],
    out: &mut [u32],
    log_m: u32,
    log_g: u32,
    input_layout: PanelLayout,
    out_layout: PanelLayout,
) -> Result<()> {
    let c = setup(args, input.len())?;
    if out.len() != input.len() || input.len() % (1usize << log_m) != 0 {
        return Err(Error::LengthMismatch {
            expected: input.len(),
            got: out.len(),
        });
    }
    if args.order == Ordering::NR && out_layout.t != 0 {
        return Err(Error::OrderingUnsupported {
            ordering: zkntt_gpu::Ordering::NR,
            reason: "the NR panel kernel's output is columns",
        });
    }
    let log_n = args.log_n;
    let count = (input.len() >> log_n) as u64;
    let words = input.len() as u64;
    let tiles = crate::ntt::pass_tiles(log_n, words, input_layout.t != 0, out_layout.t != 0);
    let stride = crate::ntt::panel_stride(tiles) as usize;
    let panel_log = TILE_LOG + tiles.trailing_zeros();
    let (log_tp, log_tpt) = (panel_log - log_n, TILE_LOG - log_n);
    let low = (1u32 << log_n) - 1;
    let word = |u: u64, e: u32, l: PanelLayout| -> usize {
        (((u >> log_g) << log_m) | ((u & ((1 << log_g) - 1)) << l.t) | ((e as u64) << l.e)) as usize
    };
    let split = |i: u32, transforms_fastest: bool| -> (u32, u32) {
        if transforms_fastest {
            (i & ((1 << log_tp) - 1), i >> log_tp)
        } else {
            (i >> log_n, i & low)
        }
    };
    let panel_word = |uo: u32, e: u32| -> usize {
        slot(((uo & ((1 << log_tpt) - 1)) << log_n) | e) * stride + (uo >> log_tpt) as usize
    };
    // RN with columns in: the 2-D twiddle w^((u mod 2^log_rows) e) on the load, the store only
    // scales (`load_rn_twiddled`).
    let rn_load_twiddled = args.order == Ordering::RN && input_layout.t == 0 && args.post.is_some();
    let mut smem = vec![0u32; TILE * stride];
    for u0 in (0..count).step_by(1 << log_tp) {
        for i in 0..1u32 << panel_log {
            let (uo, e) = split(i, input_layout.t == 0);
            let u = u0 + uo as u64;
            let at = if args.order == Ordering::RN {
                bitrev(e, log_n)
            } else {
                e
            };
            smem[panel_word(uo, e)] = if u < count {
                let x = input[word(u, at, input_layout)];
                if rn_load_twiddled {
                    c.twiddled(x, u, e)
                } else {
                    x
                }
            } else {
                0
            };
        }
        for j in 0..tiles as usize {
            let res = tile_layers(&c, true, |g| smem[slot(g) * stride + j]);
            for (g, &x) in res.iter().enumerate() {
                smem[slot(g as u32) * stride + j] = x;
            }
        }
        for i in 0..1u32 << panel_log {
            let (uo, e) = split(i, out_layout.t == 0);
            let u = u0 + uo as u64;
            if u < count {
                let at = if args.order == Ordering::NR {
                    bitrev(e, log_n)
                } else {
                    e
                };
                let x = smem[panel_word(uo, e)];
                out[word(u, at, out_layout)] = if rn_load_twiddled {
                    c.scale(x)
                } else {
                    // The 2-D twiddle's transform index (reversed in RN).
                    let t = match (args.order, args.post) {
                        (Ordering::RN, Some((_, _, log_rows))) => {
                            bitrev((u & ((1 << log_rows) - 1)) as u32, log_rows) as u64
                        }
                        _ => u,
                    };
                    c.finish(x, t, e)
                };
            }
        }
    }
    Ok(())
}

/// What a 2-D transform of 2^log_n gives its launches: the DIF table, the 2-D twiddles w_N^i
/// and w_N^(4096 i), and the inverse's 1/N.
struct TwoDTables {
    twiddles: Encoded,
    lo: Encoded,
    hi: Encoded,
    scale: Option<[u32; 2]>,
}

impl TwoDTables {
    fn new(
        field: SmallField,
        form: ModMulForm,
        direction: crate::Direction,
        log_n: u32,
    ) -> Result<Self> {
        let (lo, hi) = crate::tables::post_twiddles(field, form, direction, log_n)?;
        let scale = match direction {
            crate::Direction::Inverse => Some(crate::tables::inverse_scale(field, form, log_n)?),
            crate::Direction::Forward => None,
        };
        Ok(Self {
            twiddles: crate::tables::dif_twiddles(field, form, direction)?,
            lo,
            hi,
            scale,
        })
    }
}

/// The 2-D transform of `SmallNtt::run` with the WSX kernel above one tile (`two_d_panels`): N =
/// N1 x N2, the N1-point columns times w_N^(n2 k1) in place, then the N2-point rows out at
/// stride N1, each pass by [`panel`] or, where `ntt::rows_on_tiles` puts the rows on the tile
/// kernel, the rows by [`wsx`] (NN's then transposed back). `data` holds whole transforms of
/// 2^log_n. `ordering` NR: the columns' entry k1 to row rev(k1), then rows in and rows out,
/// entry k2 at rev(k2). RN: the input's rows (column rev(r) of the matrix, bit-reversed) in and
/// out times w_N^(rev(r) k1), then the columns (entry n2 at row rev(n2)) in and out; where the
/// rows run on the tile kernel or its wide variant, untwiddled, the columns take w_N^(n2 k1) on their
/// loads.
///
/// Above 2^24 (`ntt::two_d_split`: 2^12-point columns, 2^13/2^14-point rows) NN and NR run the
/// rows as the wide tile kernel runs them ([`wide_rows`]), bit-reversed out, then (natural order)
/// a transpose into X's order that reverses the columns back; RN (`ntt::rn_split`) runs the
/// input's rows of 2^13/2^14 first, as the wide tile kernel's RN variant runs them, then the
/// 2^12-point columns.
pub fn two_d_panels(
    field: SmallField,
    form: ModMulForm,
    direction: crate::Direction,
    log_n: u32,
    data: &mut [u32],
    ordering: Ordering,
) -> Result<()> {
    field.check_log_n(log_n)?;
    let (log1, log2) = crate::ntt::two_d_split(log_n);
    two_d_panels_split(field, form, direction, log1, log2, data, ordering)
}

/// [`two_d_panels`] for N = 2^log1 x 2^log2 chosen by the caller: rows above a tile take the wide
/// tile kernel's path (NR's for NN and NR, its RN variant for RN; the GPU's kernel has rows of
/// 2^13/2^14, this twin any the cluster twin takes, to 2^16), so tests run those paths on a
/// transform far smaller than 2^25.
pub fn two_d_panels_split(
    field: SmallField,
    form: ModMulForm,
    direction: crate::Direction,
    log1: u32,
    log2: u32,
    data: &mut [u32],
    ordering: Ordering,
) -> Result<()> {
    let log_n = log1 + log2;
    let bit_reversed = ordering == Ordering::NR;
    field.check_log_n(log_n)?;
    if data.len() % (1usize << log_n) != 0 {
        return Err(Error::NotWholeTransforms {
            len: data.len(),
            log_n,
        });
    }
    let TwoDTables {
        twiddles,
        lo,
        hi,
        scale,
    } = TwoDTables::new(field, form, direction, log_n)?;
    let args = |log_n, scale, post| KernelArgs {
        field,
        form,
        log_n,
        twiddles: &twiddles,
        scale,
        post,
        order: ordering,
    };
    let mut mid = vec![0u32; data.len()];
    if ordering == Ordering::RN {
        // Rows of 2^a, then columns of 2^b. Rows above a tile (2^13/2^14) as the wide tile kernel
        // runs them and rows of 2^10..2^12 on the WSX tile kernel, RN in, natural out, both
        // untwiddled: the columns take the 2-D twiddle on their loads. Shorter rows in panels,
        // times the 2-D twiddle on the way out.
        let (a, b) = crate::ntt::rn_split(log1, log2);
        let on_tiles = crate::ntt::rows_on_tiles(ordering, log_n, a);
        if a > TILE_LOG {
            mid.copy_from_slice(data);
            wide_rows(field, form, direction, a, &mut mid, Ordering::RN, None)?;
        } else if on_tiles {
            mid.copy_from_slice(data);
            wsx(args(a, None, None), &mut mid)?;
        } else {
            let rows = PanelLayout { t: a, e: 0 };
            let first = args(a, None, Some((&lo, &hi, b)));
            panel(first, data, &mut mid, log_n, b, rows, rows)?;
        }
        let columns = PanelLayout { t: 0, e: a };
        let post = on_tiles.then_some((&lo, &hi, a));
        return panel(args(b, scale, post), &mid, data, log_n, a, columns, columns);
    }
    let columns = PanelLayout { t: 0, e: log2 };
    let first = args(log1, None, Some((&lo, &hi, log2)));
    panel(first, data, &mut mid, log_n, log2, columns, columns)?;
    if !bit_reversed && crate::ntt::nn_rows_takes_shape(log1, log2, data.len() as u64) {
        // NN's rows kernel (`cuda/small/ntt_nn_rows.cu`, from 2^23 words): each tile's WSX
        // layers in natural order, stored across the rows: X[k1 + N1 k2].
        wsx(args(log2, scale, None), &mut mid)?;
        transpose_rows(data, &mid, log1, log2);
        return Ok(());
    }
    let on_tiles = crate::ntt::rows_on_tiles(ordering, log_n, log2);
    if on_tiles {
        // The rows bit-reversed out, in place: on the WSX tile kernel (untwiddled), or above a
        // tile on its wide variant; NN then transposes with the columns reversed back. Above a
        // tile this is also NN's wide rows kernel's result: the same column DIF and tile layers,
        // its tiles left in natural order and stored across the rows (the same words at the same
        // places).
        if log2 > TILE_LOG {
            let scale_log_n = (direction == crate::Direction::Inverse).then_some(log_n);
            wide_rows(
                field,
                form,
                direction,
                log2,
                &mut mid,
                Ordering::NR,
                scale_log_n,
            )?;
        } else {
            let rows = KernelArgs {
                order: Ordering::NR,
                ..args(log2, scale, None)
            };
            wsx(rows, &mut mid)?;
        }
        if bit_reversed {
            data.copy_from_slice(&mid);
        } else {
            transpose_rev_cols(data, &mid, log1, log2);
        }
        return Ok(());
    }
    // NN below 2^22 (NR's rows always run as the tile kernel runs them, above): rows in, columns
    // out.
    debug_assert!(!bit_reversed, "NR's rows run on the tile kernel");
    let (rows, out) = (PanelLayout { t: log2, e: 0 }, PanelLayout { t: 0, e: log1 });
    panel(args(log2, scale, None), &mid, data, log_n, log1, rows, out)
}

/// NN's rows kernel's store: row k1 of each matrix of `mid` holds X[k1 + N1 k2] at k2.
fn transpose_rows(data: &mut [u32], mid: &[u32], log1: u32, log2: u32) {
    let (n1, n2) = (1usize << log1, 1usize << log2);
    for (x, m) in data.chunks_mut(n1 * n2).zip(mid.chunks(n1 * n2)) {
        for k1 in 0..n1 {
            for k2 in 0..n2 {
                x[k1 + n1 * k2] = m[k1 * n2 + k2];
            }
        }
    }
}

/// NN's last step where the rows ran bit-reversed out (`transpose_words` with `rev_cols`): row k1
/// of each matrix of `mid` holds X[k1 + N1 k2] at rev(k2); `data` gets X in natural order.
fn transpose_rev_cols(data: &mut [u32], mid: &[u32], log1: u32, log2: u32) {
    let (n1, n2) = (1usize << log1, 1usize << log2);
    for (x, m) in data.chunks_mut(n1 * n2).zip(mid.chunks(n1 * n2)) {
        for k1 in 0..n1 {
            for c in 0..n2 {
                x[k1 + n1 * bitrev(c as u32, log2) as usize] = m[k1 * n2 + c];
            }
        }
    }
}

/// The wide tile kernel (the 2-D path's rows of 2^13/2^14 above 2^24) on `data`'s rows of
/// 2^log_n, in place, every output times 2^-scale_log_n where given. NR (`small_ntt_wsx_wide_*`,
/// NR and NN rows): the cluster kernel's NR split ([`cluster`]) in one block of 256 threads, per
/// column n2 the C-point DIF and w_N^(n2 k1), then the tile of each k1 stored at rev_C(k1) 4096
/// in the DIF's order. RN (`small_ntt_wsx_wide_rn_*`, natural out): the cluster kernel's
/// transposed split in one block, the RN tile of each segment rev_C(n1), then per k1 w_N^(n1 k1)
/// and the C-point DIF. The same products in the same order as the cluster's, so this is
/// [`cluster_rows`] in that ordering.
pub fn wide_rows(
    field: SmallField,
    form: ModMulForm,
    direction: crate::Direction,
    log_n: u32,
    data: &mut [u32],
    ordering: Ordering,
    scale_log_n: Option<u32>,
) -> Result<()> {
    if ordering == Ordering::NN {
        return Err(Error::OrderingUnsupported {
            ordering,
            reason: "the wide tile kernel's rows are NR or RN",
        });
    }
    cluster_rows(field, form, direction, log_n, data, ordering, scale_log_n)
}

/// The cluster kernel (`small_ntt_cluster_*`, `SmallNtt::run` at 2^13..2^16 on sm_90): N = C x
/// 4096, each transform's C blocks exchanging through distributed shared memory. NR (`kernel_nr`):
/// block `me` loads segment me; thread tid of block me takes the columns n2 = me 4096 / C + tid +
/// 256 i (register r = i C + n1 holds x[4096 n1 + n2]), runs the C-point DIF on the register bits
/// below log2 C, and sends entry k1 = rev(n1) times w_N^(n2 k1) to block k1; each block then runs
/// the WSX tile on its 4096 entries and stores X[me + C k2] at rev_N(me + C k2): segment rev(me),
/// entry k2 at rev(k2). NN and RN: the transposed split of `cluster_split`. `data` holds whole
/// transforms.
pub fn cluster(
    field: SmallField,
    form: ModMulForm,
    direction: crate::Direction,
    log_n: u32,
    data: &mut [u32],
    ordering: Ordering,
) -> Result<()> {
    let scale_log_n = (direction == crate::Direction::Inverse).then_some(log_n);
    cluster_rows(field, form, direction, log_n, data, ordering, scale_log_n)
}

/// [`cluster`] with every output times 2^-scale_log_n where given (the rows of a larger
/// transform take its 1/N).
fn cluster_rows(
    field: SmallField,
    form: ModMulForm,
    direction: crate::Direction,
    log_n: u32,
    data: &mut [u32],
    ordering: Ordering,
    scale_log_n: Option<u32>,
) -> Result<()> {
    field.check_log_n(log_n)?;
    let bit_reversed = ordering == Ordering::NR;
    let log_c = log_n.saturating_sub(TILE_LOG);
    if !(1..=crate::ntt::MAX_LOG_CLUSTER).contains(&log_c) {
        return Err(Error::SizeOutOfRange {
            what: "the cluster kernel",
            log_n,
            min: TILE_LOG + 1,
            max: TILE_LOG + crate::ntt::MAX_LOG_CLUSTER,
        });
    }
    if data.len() % (1usize << log_n) != 0 {
        return Err(Error::NotWholeTransforms {
            len: data.len(),
            log_n,
        });
    }
    let TwoDTables {
        twiddles, lo, hi, ..
    } = TwoDTables::new(field, form, direction, log_n)?;
    let scale = match scale_log_n {
        Some(l) => Some(crate::tables::inverse_scale(field, form, l)?),
        None => None,
    };
    let args = |scale, post| KernelArgs {
        field,
        form,
        log_n: TILE_LOG,
        twiddles: &twiddles,
        scale,
        post,
        // The tile's output order (the rows'); RN's input order is the columns' reads below.
        order: if bit_reversed {
            Ordering::NR
        } else {
            Ordering::NN
        },
    };
    let columns = setup(args(None, Some((&lo, &hi, TILE_LOG))), TILE)?;
    let rows = setup(args(scale, None), TILE)?;
    let c = 1usize << log_c;
    if !bit_reversed {
        cluster_split(
            &columns,
            &rows,
            log_c,
            log_n,
            data,
            ordering == Ordering::RN,
        );
        return Ok(());
    }
    for x in data.chunks_mut(1 << log_n) {
        // Block k1's `col` after the column phase.
        let mut col = vec![vec![0u32; TILE]; c];
        for me in 0..c {
            for tid in 0..THREADS {
                let n2 = |r: usize| (me << (TILE_LOG - log_c)) + tid + ((r >> log_c) << 8);
                // x[4096 n1 + n2].
                let mut y: [u32; PER_THREAD] =
                    std::array::from_fn(|r| x[((r & (c - 1)) << TILE_LOG) + n2(r)]);
                column_dif(&columns, &mut y, log_c);
                for (r, &v) in y.iter().enumerate() {
                    let k1 = bitrev((r & (c - 1)) as u32, log_c);
                    col[k1 as usize][n2(r)] = columns.finish(v, n2(r) as u64, k1);
                }
            }
        }
        for (me, row) in col.iter().enumerate() {
            let res = tile_layers(&rows, true, |g| row[g as usize]);
            for (k2, &v) in res.iter().enumerate() {
                // X[me + C k2] at rev_N(me + C k2) = rev_C(me) 4096 + rev(k2).
                let at =
                    (bitrev(me as u32, log_c) << TILE_LOG | bitrev(k2 as u32, TILE_LOG)) as usize;
                x[at] = rows.finish(v, 0, 0);
            }
        }
    }
    Ok(())
}

/// The cluster kernel's C-point DIF on the register bits below log_c (`column_dif`): layer b pairs
/// r and r | 2^b with twiddle entry 2^b + (r mod 2^b); register r then holds entry rev(n1).
fn column_dif(columns: &Ctx<'_>, y: &mut [u32; PER_THREAD], log_c: u32) {
    for b in (0..log_c).rev() {
        let h = 1usize << b;
        for r in (0..PER_THREAD).filter(|r| r & h == 0) {
            (y[r], y[r | h]) = if b == 0 {
                columns.butterfly_unit(y[r], y[r | h])
            } else {
                columns.butterfly(y[r], y[r | h], columns.tw((h | (r & (h - 1))) as u32))
            };
        }
    }
}

/// The cluster kernel's NN and RN (`kernel_split`): the transposed split, x[n1 + C n2] and
/// X[k1 + 4096 k2]. Block n1 transforms x[n1 + C n2] (WSX tile, natural order out): NN reads it at
/// stride C; RN's x[j] lies at rev_N(j), so x[n1 + C n2] at rev_C(n1) 4096 + rev(n2), segment
/// rev_C(n1) read bit-reversed. Thread tid of block me then takes
/// k1 = me 4096 / C + tid + 256 i, register r = i C + n1 holding block n1's output k1 times
/// w_N^(n1 k1), runs the C-point DIF on the register bits below log2 C and stores register r at
/// X[k1 + 4096 rev(n1)], through `rows` (the scale).
fn cluster_split(
    columns: &Ctx<'_>,
    rows: &Ctx<'_>,
    log_c: u32,
    log_n: u32,
    data: &mut [u32],
    bit_reversed_in: bool,
) {
    let c = 1usize << log_c;
    for x in data.chunks_mut(1 << log_n) {
        // Where x[n1 + C n2] lies.
        let at = |n1: usize, n2: u32| match bit_reversed_in {
            true => {
                ((bitrev(n1 as u32, log_c) as usize) << TILE_LOG) | bitrev(n2, TILE_LOG) as usize
            }
            false => n1 | (n2 as usize) << log_c,
        };
        let outs: Vec<Vec<u32>> = (0..c)
            .map(|n1| tile_layers(rows, true, |g| x[at(n1, g)]))
            .collect();
        for me in 0..c {
            for tid in 0..THREADS {
                let k1 = |r: usize| (me << (TILE_LOG - log_c)) + tid + ((r >> log_c) << 8);
                let mut y: [u32; PER_THREAD] = std::array::from_fn(|r| {
                    let n1 = r & (c - 1);
                    columns.finish(outs[n1][k1(r)], k1(r) as u64, n1 as u32)
                });
                column_dif(columns, &mut y, log_c);
                for (r, &v) in y.iter().enumerate() {
                    let k = k1(r) + ((bitrev((r & (c - 1)) as u32, log_c) as usize) << TILE_LOG);
                    x[k] = rows.finish(v, 0, 0);
                }
            }
        }
    }
}

/// The block-synchronous baseline kernel on `data`.
pub fn block(args: KernelArgs<'_>, data: &mut [u32]) -> Result<()> {
    let c = setup(args, data.len())?;
    let log_n = args.log_n;
    let low = (1u32 << log_n) - 1;
    for (tile, chunk) in data.chunks_mut(TILE).enumerate() {
        let mut smem = vec![0u32; TILE];
        smem[..chunk.len()].copy_from_slice(chunk);
        for b in (0..log_n).rev() {
            let stride = 1u32 << b;
            for i in 0..(TILE / 2) as u32 {
                let j = i & (stride - 1);
                let lo = (((i >> b) << (b + 1)) | j) as usize;
                let hi = lo | stride as usize;
                (smem[lo], smem[hi]) = c.butterfly(smem[lo], smem[hi], c.tw(stride | j));
            }
        }
        let first = ((tile * TILE) >> log_n) as u64;
        for (g, out) in chunk.iter_mut().enumerate() {
            let g = g as u32;
            let x = smem[((g & !low) | bitrev(g & low, log_n)) as usize];
            *out = c.finish(x, first + (g >> log_n) as u64, g & low);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Direction, reference, tables};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn random(field: SmallField, n: usize, seed: u64) -> Vec<u32> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n).map(|_| rng.gen_range(0..field.modulus())).collect()
    }

    type Twin = fn(KernelArgs<'_>, &mut [u32]) -> Result<()>;

    fn check(
        field: SmallField,
        form: ModMulForm,
        dir: Direction,
        log_n: u32,
        batch: usize,
        twin: Twin,
    ) {
        check_ordered(field, form, dir, log_n, batch, twin, Ordering::NN)
    }

    fn check_ordered(
        field: SmallField,
        form: ModMulForm,
        dir: Direction,
        log_n: u32,
        batch: usize,
        twin: Twin,
        order: Ordering,
    ) {
        let q = field.modulus();
        let mut x = random(field, batch << log_n, (log_n as u64) << 8 | batch as u64);
        x[0] = 0;
        if x.len() > 1 {
            x[1] = q - 1;
        }
        let want = expected(field, &x, log_n, dir, order);
        if order == Ordering::RN {
            x = bit_reverse_each(&x, log_n);
        }
        let tw = tables::dif_twiddles(field, form, dir).unwrap();
        let scale =
            (dir == Direction::Inverse).then(|| tables::inverse_scale(field, form, log_n).unwrap());
        let args = KernelArgs {
            field,
            form,
            log_n,
            twiddles: &tw,
            scale,
            post: None,
            order,
        };
        twin(args, &mut x).unwrap();
        assert_eq!(
            x, want,
            "{field:?} {form:?} {dir:?} 2^{log_n} x {batch}, {order:?}"
        );
    }

    /// Each transform of 2^log_n reordered: output k to position rev(k).
    fn bit_reverse_each(x: &[u32], log_n: u32) -> Vec<u32> {
        let mut y = x.to_vec();
        y.chunks_mut(1 << log_n)
            .for_each(zkntt_core::reference::bit_reverse_permute);
        y
    }

    #[test]
    fn wsx_twin_matches_reference() {
        for field in SmallField::ALL {
            for form in ModMulForm::ALL {
                for log_n in 0..=TILE_LOG {
                    for dir in [Direction::Forward, Direction::Inverse] {
                        let batch = if log_n >= 10 { 2 } else { 3 + (TILE >> log_n) };
                        check(field, form, dir, log_n, batch, wsx);
                        check(field, form, dir, log_n, batch, wsx_half);
                        check_ordered(field, form, dir, log_n, batch, wsx, Ordering::NR);
                        check_ordered(field, form, dir, log_n, batch, wsx, Ordering::RN);
                    }
                }
            }
        }
    }

    /// The reference transforms of `x` (whole transforms of 2^log_n, natural order), each
    /// bit-reversed in NR. (RN's input is `x` bit-reversed, its output these in natural order.)
    fn expected(
        field: SmallField,
        x: &[u32],
        log_n: u32,
        dir: Direction,
        order: Ordering,
    ) -> Vec<u32> {
        let mut want = x.to_vec();
        reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
        if order == Ordering::NR {
            bit_reverse_each(&want, log_n)
        } else {
            want
        }
    }

    /// A 2-D twin: field, form, direction, log_n, data, ordering.
    type TwoDTwin = fn(SmallField, ModMulForm, Direction, u32, &mut [u32], Ordering) -> Result<()>;

    /// `twin` on random batches equals the reference, both directions, for each field and each
    /// (form, log_n, batch) the field holds.
    fn two_d_twin_matches_reference(
        cases: &[(ModMulForm, u32, usize)],
        twin: TwoDTwin,
        order: Ordering,
    ) {
        for field in SmallField::ALL {
            for &(form, log_n, batch) in cases {
                if log_n > field.max_log_n() {
                    continue;
                }
                for dir in [Direction::Forward, Direction::Inverse] {
                    let x = random(field, batch << log_n, log_n as u64);
                    let want = expected(field, &x, log_n, dir, order);
                    let mut got = if order == Ordering::RN {
                        bit_reverse_each(&x, log_n)
                    } else {
                        x
                    };
                    twin(field, form, dir, log_n, &mut got, order).unwrap();
                    assert_eq!(
                        got, want,
                        "{field:?} {form:?} {dir:?} 2^{log_n} x {batch}, {order:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn panel_twin_matches_reference() {
        // Sizes whose passes cover panels of one tile per transform (2^12 columns at 2^24 is
        // too slow here; the GPU tests run it), several transforms per tile, and panels that
        // span matrices (2^13: 256 columns of 2^6 per panel, 128 per matrix).
        let cases = [
            (ModMulForm::Montgomery, 13, 3),
            (ModMulForm::ShoupLazy, 14, 1),
            (ModMulForm::MontgomeryLazy, 15, 2),
            (ModMulForm::Barrett, 16, 1),
        ];
        for order in [Ordering::NN, Ordering::NR, Ordering::RN] {
            two_d_twin_matches_reference(&cases, two_d_panels, order);
        }
    }

    #[test]
    fn rn_rows_on_tiles_twin_matches_reference() {
        // RN's rows of 2^10 on the tile kernel (`ntt::rows_on_tiles`), untwiddled, four rows a
        // tile, the 2-D twiddle on the columns pass's loads; a batch of two. At 2^16..2^18 the
        // rows are 2^10 too (`ntt::rn_split`), the columns 2^6..2^8; below, rows of 2^7.
        assert!(crate::ntt::rows_on_tiles(Ordering::RN, 19, 10));
        assert!(!crate::ntt::rows_on_tiles(Ordering::RN, 18, 9));
        assert_eq!(crate::ntt::rn_split(8, 9), (10, 7));
        assert_eq!(crate::ntt::rn_split(8, 8), (10, 6));
        assert_eq!(crate::ntt::rn_split(9, 10), (10, 9));
        assert_eq!(crate::ntt::rn_split(7, 8), (8, 7));
        let cases = [
            (ModMulForm::Montgomery, 19, 2),
            (ModMulForm::ShoupLazy, 20, 1),
            (ModMulForm::ShoupLazy, 16, 3),
            (ModMulForm::Montgomery, 17, 1),
            (ModMulForm::MontgomeryLazy, 18, 1),
        ];
        two_d_twin_matches_reference(&cases, two_d_panels, Ordering::RN);
    }

    #[test]
    fn nn_rows_on_tiles_twin_matches_reference() {
        // NN from 2^22 below 2^23 words: the rows on the tile kernel bit-reversed out, then the
        // transpose that reverses the columns back.
        assert!(crate::ntt::rows_on_tiles(Ordering::NN, 22, 11));
        assert!(!crate::ntt::rows_on_tiles(Ordering::NN, 21, 11));
        let x = random(SmallField::BabyBear, 1 << 22, 22);
        for dir in [Direction::Forward, Direction::Inverse] {
            let want = expected(SmallField::BabyBear, &x, 22, dir, Ordering::NN);
            let mut got = x.clone();
            two_d_panels(
                SmallField::BabyBear,
                ModMulForm::ShoupLazy,
                dir,
                22,
                &mut got,
                Ordering::NN,
            )
            .unwrap();
            assert!(got == want, "{dir:?}");
        }
    }

    #[test]
    fn nn_rows_kernel_twin_matches_reference() {
        // From 2^23 words NN's rows run on NN's rows kernel: in natural order, stored across the
        // rows (2^17 x 64: rows of 2^9, eight a tile).
        assert!(crate::ntt::nn_rows_takes_shape(8, 9, 64 << 17));
        let x = random(SmallField::KoalaBear, 64 << 17, 17);
        let want = expected(
            SmallField::KoalaBear,
            &x,
            17,
            Direction::Inverse,
            Ordering::NN,
        );
        let mut got = x.clone();
        two_d_panels(
            SmallField::KoalaBear,
            ModMulForm::ShoupLazy,
            Direction::Inverse,
            17,
            &mut got,
            Ordering::NN,
        )
        .unwrap();
        assert!(got == want);
    }

    #[test]
    fn two_d_wide_rows_match_reference() {
        // The path of 2^25/2^26 (columns of one panel tile, rows of 2^13/2^14 on the wide tile kernel, NN
        // then a transpose, the words NN's wide rows kernel stores; RN rows first), on 2^4 x 2^13
        // and 2^3 x 2^14 columns so that it runs here; the GPU tests run 2^25 and 2^26 themselves.
        for field in [SmallField::BabyBear, SmallField::KoalaBear] {
            for (form, log1, log2, batch) in [
                (ModMulForm::ShoupLazy, 4, 13, 2),
                (ModMulForm::Montgomery, 3, 14, 1),
            ] {
                let log_n = log1 + log2;
                for dir in [Direction::Forward, Direction::Inverse] {
                    // RN: the input's rows of 2^13/2^14 first, on the wide tile kernel, untwiddled, then the
                    // columns of 2^log1 with the 2-D twiddle on their loads.
                    for order in [Ordering::NN, Ordering::NR, Ordering::RN] {
                        let x = random(field, batch << log_n, log_n as u64);
                        let want = expected(field, &x, log_n, dir, order);
                        let mut got = if order == Ordering::RN {
                            bit_reverse_each(&x, log_n)
                        } else {
                            x
                        };
                        two_d_panels_split(field, form, dir, log1, log2, &mut got, order).unwrap();
                        assert!(
                            got == want,
                            "{field:?} {form:?} {dir:?} 2^{log1} x 2^{log2} x {batch}, {order:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(crate::ntt::two_d_split(24), (12, 12));
        assert_eq!(crate::ntt::two_d_split(25), (12, 13));
        assert_eq!(crate::ntt::two_d_split(26), (12, 14));
        assert_eq!(crate::ntt::two_d_split(17), (8, 9));
    }

    #[test]
    fn cluster_twin_matches_reference() {
        // Every cluster size (2..16 blocks), both directions, a batch of two at one size; forms
        // of each kind (Montgomery, Shoup, lazy on a Harvey field and on the others).
        let cases = [
            (ModMulForm::Montgomery, 13, 2),
            (ModMulForm::ShoupLazy, 14, 1),
            (ModMulForm::MontgomeryLazy, 15, 1),
            (ModMulForm::Barrett, 16, 1),
            (ModMulForm::ShoupLazy, 16, 1),
        ];
        two_d_twin_matches_reference(&cases, cluster, Ordering::NN);
        two_d_twin_matches_reference(&cases, cluster, Ordering::NR);
        two_d_twin_matches_reference(&cases, cluster, Ordering::RN);
        // Not cluster sizes (2^12, 2^17): errors, in every ordering.
        for log_n in [12, 17] {
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                let mut x = vec![0; 1 << log_n];
                let (f, m) = (SmallField::BabyBear, ModMulForm::Montgomery);
                assert!(cluster(f, m, Direction::Forward, log_n, &mut x, ordering).is_err());
            }
        }
    }

    /// Panel words in the order of a row load or store (elements fastest) hit 32 banks per warp;
    /// in the order of a column load or store (transforms fastest) up to 8 ways conflict, where
    /// a warp's 32 transforms differ only in tile bits above the swizzle's (2^7..2^9).
    #[test]
    fn panel_shared_memory_conflicts() {
        // A column pass's panels at each size: 8 transforms, and 16 (2^11 and up) in a pass of 2^22
        // words.
        let wide = crate::ntt::WIDE_PANEL_WORDS;
        for (log_n, words) in (1..=TILE_LOG).flat_map(|l| [(l, 1 << 20), (l, wide)]) {
            let tiles = crate::ntt::pass_tiles(log_n, words, false, false);
            let stride = crate::ntt::panel_stride(tiles) as usize;
            let panel_log = TILE_LOG + tiles.trailing_zeros();
            let (log_tp, log_tpt) = (panel_log - log_n, TILE_LOG - log_n);
            let word = |uo: u32, e: u32| {
                slot(((uo & ((1 << log_tpt) - 1)) << log_n) | e) * stride + (uo >> log_tpt) as usize
            };
            for fast in [true, false] {
                let mut worst = 0;
                for i0 in (0..1u32 << panel_log).step_by(32) {
                    let mut per_bank = [0u32; 32];
                    for i in i0..i0 + 32 {
                        let (uo, e) = if fast {
                            (i & ((1 << log_tp) - 1), i >> log_tp)
                        } else {
                            (i >> log_n, i & ((1 << log_n) - 1))
                        };
                        per_bank[word(uo, e) % 32] += 1;
                    }
                    worst = worst.max(*per_bank.iter().max().unwrap());
                }
                let bound = match (fast, log_n) {
                    (false, _) | (true, ..=4) => 1,
                    (true, 5 | 11 | 12) => 2,
                    (true, 6 | 10) => 4,
                    (true, _) => 8,
                };
                assert_eq!(
                    worst, bound,
                    "2^{log_n} in {tiles} tiles, transforms fastest: {fast}"
                );
            }
        }
    }

    #[test]
    fn block_twin_matches_reference() {
        for field in SmallField::ALL {
            for form in ModMulForm::ALL {
                for log_n in [0, 1, 2, 5, 8, 9, 11, 12] {
                    check(field, form, Direction::Forward, log_n, 3, block);
                    check(field, form, Direction::Inverse, log_n, 1, block);
                }
            }
        }
    }

    #[test]
    fn harvey_lazy_takes_inputs_below_2q() {
        let field = SmallField::Q28;
        let q = field.modulus();
        for form in [ModMulForm::ShoupLazy, ModMulForm::MontgomeryLazy] {
            for log_n in [4, 12] {
                let x = random(field, 2 << log_n, 9);
                // The same values shifted by q where that stays below 2q.
                let mut unreduced: Vec<u32> = x.iter().map(|&v| v + q).collect();
                unreduced[0] = 2 * q - 1;
                let mut reduced = x.clone();
                reduced[0] = q - 1;
                let tw = tables::dif_twiddles(field, form, Direction::Forward).unwrap();
                let args = KernelArgs {
                    field,
                    form,
                    log_n,
                    twiddles: &tw,
                    scale: None,
                    post: None,
                    order: Ordering::NN,
                };
                wsx(args, &mut unreduced).unwrap();
                block(args, &mut reduced).unwrap();
                assert_eq!(unreduced, reduced, "{form:?} 2^{log_n}");
            }
        }
    }

    /// The XOR swizzle of ntt_wsx.cu: each warp-wide shared-memory access of the WSX kernel
    /// (M1 rows, the M2 read, the bit-reversed output write at every size) hits 32 banks.
    #[test]
    fn wsx_shared_memory_accesses_are_conflict_free() {
        let banks = |slots: Vec<usize>| {
            let mut b: Vec<usize> = slots.iter().map(|s| s % 32).collect();
            b.sort_unstable();
            b.dedup();
            b.len()
        };
        for warp in 0..(THREADS / 32) as u32 {
            for r in 0..PER_THREAD as u32 {
                let lanes = 0..32u32;
                let m1 = lanes
                    .clone()
                    .map(|l| slot((warp * 32 + l) | (r << 8)))
                    .collect();
                assert_eq!(banks(m1), 32, "M1 warp {warp} register {r}");
                let m2 = lanes.clone().map(|l| slot(m2_index(l, warp, r))).collect();
                assert_eq!(banks(m2), 32, "M2 warp {warp} register {r}");
                for log_n in 0..=TILE_LOG {
                    let low = (1u32 << log_n) - 1;
                    let out = lanes
                        .clone()
                        .map(|l| {
                            let g = m3_index(l, warp, r);
                            slot((g & !low) | bitrev(g & low, log_n))
                        })
                        .collect();
                    assert_eq!(banks(out), 32, "output 2^{log_n} warp {warp} register {r}");
                }
                // The NR tiles' output exchange: the DIF's order, slot g for output rev(g).
                let dif = lanes.clone().map(|l| slot(m3_index(l, warp, r))).collect();
                assert_eq!(banks(dif), 32, "DIF-order output warp {warp} register {r}");
            }
        }
    }

    #[test]
    fn errors() {
        let field = SmallField::Q28;
        let tw = tables::dif_twiddles(field, ModMulForm::Montgomery, Direction::Forward).unwrap();
        let args = KernelArgs {
            field,
            form: ModMulForm::Montgomery,
            log_n: 13,
            twiddles: &tw,
            scale: None,
            post: None,
            order: Ordering::NN,
        };
        assert!(matches!(
            wsx(args, &mut [0; 8192]),
            Err(Error::SizeUnsupported { .. })
        ));
        // The NR panel kernel's output is columns: rows out is refused (as `SmallNtt::panel` does).
        let nr = KernelArgs {
            log_n: 6,
            order: Ordering::NR,
            ..args
        };
        let (rows, columns) = (PanelLayout { t: 6, e: 0 }, PanelLayout { t: 0, e: 6 });
        let mut out = vec![0; 1 << 12];
        assert!(matches!(
            panel(nr, &[0; 1 << 12], &mut out, 12, 6, columns, rows),
            Err(Error::OrderingUnsupported { .. })
        ));
        assert!(panel(nr, &[0; 1 << 12], &mut out, 12, 6, columns, columns).is_ok());
        let args = KernelArgs { log_n: 3, ..args };
        assert!(matches!(
            block(args, &mut [0; 12]),
            Err(Error::NotWholeTransforms { .. })
        ));
        // Tables that are not the twin's: refused, not indexed past their end or misread.
        let empty = Encoded {
            form: ModMulForm::Montgomery,
            entries: Vec::new(),
        };
        assert!(matches!(
            wsx(
                KernelArgs {
                    twiddles: &empty,
                    ..args
                },
                &mut [0; 8]
            ),
            Err(Error::LengthMismatch { got: 0, .. })
        ));
        let shoup = tables::dif_twiddles(field, ModMulForm::Shoup, Direction::Forward).unwrap();
        assert!(matches!(
            wsx(
                KernelArgs {
                    twiddles: &shoup,
                    ..args
                },
                &mut [0; 8]
            ),
            Err(Error::TableForm { .. })
        ));
    }
}
