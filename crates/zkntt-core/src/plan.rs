//! How a transform of 2^log_n splits into GPU launches: the plan as data, shared by the GPU engine
//! and its CPU twin ([`crate::self_sort`]).
//!
//! Up to [`MAX_SINGLE_LOG`] the whole transform runs in one block's shared memory (one launch).
//! Beyond, N = P x Q x P (P = 2^log_p, Q = 2^log_q) in three in-place launches with natural order
//! in and out and no bit-reversal pass (Hegland's self-sorting in-place scheme):
//!
//! | launch | kernel | what | data it reads and writes |
//! |---|---|---|---|
//! | 1 | [`Kernel::Column`] | P-point NTTs down the columns of the P x (Q*P) matrix, times w_N^(c*k1) | column c, in place |
//! | 2 | [`Kernel::Middle`] | Q-point NTTs on groups (a, *, b), times w_N^(P*b*k), written to (b, *, a) | tile pairs (a,b)/(b,a), in place |
//! | 3 | [`Kernel::Column`] | P-point NTTs down the columns again (with the coset inverse's scaling) | column c, in place |
//!
//! A plain inverse's 1/N rides on launch 2's twiddles (the mid table times 1/N, [`flags::MID_SCALED`]),
//! as on the bit-reversed orderings' middle launch below; where a transform has no such launch, on
//! the stage twiddles of a launch that reads the full table (times 1/N, [`flags::OMEGA_SCALED`]:
//! the two-launch bit-reversed orderings, the two-pass natural order) where the engine lends that
//! table ([`Form::scaled_omega`]), else on its last launch ([`flags::POST_CONST`]).
//!
//! The bit-reversed orderings need no permutation pass and no transposition: N = P x R is split
//! the other way round (Gentleman-Sande for NR, its mirror for RN), every launch a column launch
//! over sub-transforms of M contiguous elements ([`Launch::log_m`]):
//!
//! | NR launch | columns of | sub-transform M | what |
//! |---|---|---|---|
//! | 1 | P entries, stride R | N | P-point NTT, times w_N^(c*k), entry k stored at row rev_P(k) |
//! | 2 | Q entries, stride P | R (each row) | Q-point NTT, times w_R^(c*k), entry k stored at row rev_Q(k) |
//! | 3 | P contiguous entries | P | P-point NTT, entry k stored at rev_P(k) |
//!
//! so that X[k1 + P*k2 + P*Q*k3] lands at rev_P(k1)*R + rev_Q(k2)*P + rev_P(k3) = rev_N(k). RN runs
//! the same launches in the other order with the input's rows read where the bit-reversed input
//! put them (row i holds index rev(i)) and the twiddle w^(rev(i)*c) applied on the way in. Up to
//! 2^20 two launches do it (P x R, both at most 2^10: launch 2 is R-point segments), one launch
//! and one twiddle pass fewer than natural order ([`Plan::ordered_columns`], [`ordered_launches`]:
//! any split of log_n into column sizes works).
//!
//! Natural order can also run as N = N1 x N2 in two column launches through a scratch buffer
//! ([`Natural::TwoPass`], the default for calls of at most 2^[`TWO_PASS_AUTO_MAX_LOG`] elements):
//! the first stores its columns into the scratch, the second reads the scratch's rows as columns
//! and stores them at the natural index: one launch fewer, not in place.
//!
//! Under [`Blocks::Cluster`] a size in [`CLUSTER_LOGS`] runs in one launch instead, in any ordering:
//! [`Kernel::Cluster`] on a thread-block cluster of 2^[`CLUSTER_LOG`] blocks (sm_90+), N = C x L
//! four-step with the exchange between the steps through distributed shared memory
//! ([`cluster_launch`]).
//!
//! [`Plan::launches`] turns a plan and the form of a call (ordering, scaling) into that table with
//! every launch's geometry and flags: the one place that knows the launch order. The engine runs
//! it in one loop; the host pipeline runs the first and last column launches of a natural-order
//! transform a range of columns at a time ([`Launch::by_columns`]).

use crate::{Direction, Error, FieldId, Ordering};

/// Largest log2 size done in one block: 2^8 elements, a radix-2 butterfly per thread of 128. A
/// block runs on one SM, whose multipliers a larger transform keeps busy for longer than the
/// launches of the three-stage plan take (2^11 in one block measured 0.23-0.36x sppark:
/// benches/NOTES.md, issue 17).
pub const MAX_SINGLE_LOG: u32 = 8;
/// Largest P of the three-stage plan (column NTTs in one block).
pub const MAX_LOG_P: u32 = 11;
/// Largest Q of the middle stage (groups of Q elements per tile in one block).
pub const MAX_LOG_Q: u32 = 10;
/// Elements one middle-stage block holds at most (tiles are sized to reach it).
pub const MIDDLE_ELEMENTS_LOG: u32 = 9;
/// Elements one column-stage block holds for small P (several columns per block).
pub const COLUMN_ELEMENTS_LOG: u32 = 10;
/// P is kept at 2^10 where Q allows: a 2^10 column takes 33 KiB of shared memory, so four
/// blocks share an SM (2^11 columns fit only three, and the stages are latency-bound).
pub const PREFERRED_LOG_P: u32 = 10;
/// Column-stage blocks wanted at least (four per SM on a 132-SM H100), reached by holding fewer
/// columns per block, down to 2^MIN_COLUMN_ELEMENTS_LOG elements (one radix-4 group per thread).
pub const MIN_COLUMN_BLOCKS_LOG: u32 = 9;
pub const MIN_COLUMN_ELEMENTS_LOG: u32 = 9;

/// Threads per block of the wide blocks (and the most of any middle launch): 128 threads x 128
/// registers lets four column blocks of 2^10 elements share an SM, each waiting at its own
/// barriers (benches/NOTES.md has the sweep).
pub const THREADS: u32 = 128;
/// Narrow blocks ([`Blocks::Narrow`]) hold at most 2^NARROW_ELEMENTS_LOG elements (middle
/// blocks) or 2^[`NARROW_COLUMN_ELEMENTS_LOG`] (column blocks), one radix-2 butterfly per thread
/// per layer, and at least 2^NARROW_MIN_ELEMENTS_LOG where the columns allow (a warp of
/// butterflies).
pub const NARROW_ELEMENTS_LOG: u32 = 8;
/// A narrow column block holds one column of up to 2^9 entries on [`NARROW_THREADS`] threads:
/// 2^17's 2^9-point launch then runs twice the warps of a wide block (ncu: 31.5 us wide against
/// 24.8 for its narrow 2^8-point launch; benches/NOTES.md, issue 17).
pub const NARROW_COLUMN_ELEMENTS_LOG: u32 = 9;
/// The most threads of any NTT launch: a narrow column block of 2^[`NARROW_COLUMN_ELEMENTS_LOG`]
/// elements. The column kernels are compiled for it (`__launch_bounds__(256, 2)`: the same 128
/// registers as 128 x 4).
pub const NARROW_THREADS: u32 = 1 << (NARROW_COLUMN_ELEMENTS_LOG - 1);
pub const NARROW_MIN_ELEMENTS_LOG: u32 = 6;
/// Largest log2 size whose launches take narrow blocks under [`Blocks::Auto`].
pub const NARROW_MAX_LOG: u32 = 17;
/// Smallest log2 size whose launches after the first are dependent (programmatic dependent
/// launch, sm_90+) whatever the blocks. Below it the dependent launch measured slower with wide
/// blocks and faster with narrow ones (benches/NOTES.md).
pub const DEPENDENT_LAUNCH_MIN_LOG: u32 = 18;

/// log2 of the blocks of a cluster launch ([`Kernel::Cluster`]): 16, the most an H100 runs as one
/// cluster (a non-portable size), so a transform is spread over 16 SMs.
pub const CLUSTER_LOG: u32 = 4;
/// The sizes [`Kernel::Cluster`] runs: each block holds L = N / C elements twice (its columns and
/// its row: 2 x 33 KiB at 2^14), and C <= L. Above 2^14 sixteen SMs' multipliers alone would take
/// about as long as the two launches of the bit-reversed orderings (the floor: benches/NOTES.md).
pub const CLUSTER_LOGS: std::ops::RangeInclusive<u32> = 9..=14;

/// Bits of a launch's `flags`: what the kernel does besides its NTT layers. The same values as
/// `cuda/ntt/ntt_common.cuh`.
pub mod flags {
    /// Input element j *= pre(j) (coset forward: g^j).
    pub const PRE_SCALE: u32 = 1;
    /// Column output (k1, c) *= w_N^(c*k1) (the first column launch).
    pub const TWIDDLE_OUT: u32 = 2;
    /// Output element k *= post(k) (coset inverse: g^-k / N, the 1/N in the table).
    pub const POST_SCALE: u32 = 4;
    /// Output element *= one constant (inverse: 1/N).
    pub const POST_CONST: u32 = 8;
    /// The twiddle table holds all N powers of the root (one read per twiddle, no product).
    pub const OMEGA_FULL: u32 = 16;
    /// Column launch: row i of a column holds entry rev(i) (bit-reversed input); the exponents of
    /// PRE_SCALE are the reversed positions.
    pub const IN_BITREV: u32 = 32;
    /// Column launch: entry k is stored at row rev(k) (bit-reversed output); the exponents of
    /// POST_SCALE are the reversed positions.
    pub const OUT_BITREV: u32 = 64;
    /// Column input (row i, column c of a sub-transform of M) *= w_M^(rev(i)*c) (RN's later launches).
    pub const TWIDDLE_IN: u32 = 128;
    /// TWIDDLE_IN/OUT read w_M^e from the middle stage's table (w_N^(P*e), e < N/P: one read, no
    /// product), where M = N/P for the plan's P.
    pub const MID_TWIDDLES: u32 = 256;
    /// A narrow block (at most two elements per thread): a radix-2 butterfly per thread per
    /// layer, the sub-NTT's twiddles staged in shared memory after the elements (the launch's
    /// `smem` counts them: [`narrow_smem_bytes`](super::narrow_smem_bytes)), the stage twiddles
    /// of the output read before the butterflies. From 2^16 (`FOLD_MIN_LOG` in
    /// `cuda/ntt/column.cu`), a full block of one column with [`TWIDDLE_IN`] or [`TWIDDLE_OUT`]
    /// (not both) read from one table, with no scale flag ([`PRE_SCALE`], [`POST_SCALE`],
    /// [`POST_CONST`], [`MID_SCALED`], [`OMEGA_SCALED`]) and not [`LDE`] or [`SCRATCH_IN`], folds
    /// its stage twiddles into the layers' twiddles instead: no product for them
    /// (`zkntt_core::self_sort::folded_column`).
    pub const NARROW: u32 = 512;
    /// A wide column launch on the hybrid kernels (`ntt_column*_hybrid_*`): one product of each
    /// independent pair on the FP64 pipe ([`Product::Hybrid`]). Read by the host to choose the
    /// kernel symbol, not by the kernel.
    pub const FP64_HYBRID: u32 = 1024;
    /// A coset LDE's fused column launch ([`fused_lde_launch`], the `ntt_column_lde_*` symbol):
    /// the inverse's last column launch and the coset forward's first on the same columns, one
    /// pass over memory.
    pub const LDE: u32 = 2048;
    /// Natural-order column launch storing into the call's scratch buffer (out of place, at the
    /// natural index), the first of a [`Natural::TwoPass`] transform. Read by the host only.
    pub const SCRATCH_OUT: u32 = 4096;
    /// Natural-order column launch reading the call's scratch buffer transposed (row i of column
    /// c at c*S + i: each column's entries contiguous) and storing into the data, the second of
    /// a [`Natural::TwoPass`] transform (the `ntt_column_t_*` symbol).
    pub const SCRATCH_IN: u32 = 8192;
    /// The inverse's 1/N rides on this launch's mid-table twiddles ([`MID_TWIDDLES`] or a middle
    /// launch): the engine gives it the table w_M^e / N, and no launch of the transform carries
    /// [`POST_CONST`] ([`Plan::launches`]). The column kernel folds no stage twiddle into its
    /// layers where this is set (each element must take the 1/N once).
    pub const MID_SCALED: u32 = 16384;
    /// The inverse's 1/N rides on this column launch's stage twiddles read from the full table
    /// ([`OMEGA_FULL`] with [`TWIDDLE_IN`] or [`TWIDDLE_OUT`]), where the transform has no
    /// mid-table launch: the engine gives it the table w_N^e / N ([`Form::scaled_omega`]), and no
    /// launch carries [`POST_CONST`]. The column kernel folds no stage twiddle into its layers
    /// where this is set (each element must take the 1/N once).
    pub const OMEGA_SCALED: u32 = 32768;
    /// A column launch lets the next (dependent) launch start right after its own wait
    /// ([`Trigger::Start`]), not once its layers are done.
    pub const TRIGGER_START: u32 = 65536;
}

/// The kernels of the NTT engine (`cuda/ntt/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `cuda/ntt/column.cu`: P-point NTTs down columns in shared memory (also whole transforms up
    /// to 2^[`MAX_SINGLE_LOG`]).
    Column,
    /// `cuda/ntt/middle.cu`: Q-point NTTs on tile pairs of groups, with the transposing swap.
    Middle,
    /// `cuda/ntt/stage2_warp.cu`: the seed's stage2, the middle stage's Q-point NTTs (Q at most
    /// 2^[`STAGE2_WARP_MAX_LOG_Q`]) one tile pair per warp, in registers: no shared memory, no
    /// block barrier. Same input, output and twiddles as [`Kernel::Middle`].
    Stage2Warp,
    /// `cuda/ntt/cluster.cu`: a whole transform of a size in [`CLUSTER_LOGS`] in one launch on a
    /// thread-block cluster of 2^[`CLUSTER_LOG`] blocks (sm_90+; [`cluster_launch`]), any
    /// ordering and scaling by its flags.
    Cluster,
    /// `cuda/ntt/stage1_block.cu`: the seed's stage1, the column launches (blocks of
    /// 2^[`STAGE1_LOG_SLOTS`] slots) with word loads and stores (8 lanes per element), butterflies
    /// in registers, lane bits swapped in by warp shuffles, shared memory only between warps. Same
    /// input, output, flags and twiddles as [`Kernel::Column`].
    Stage1,
}

/// Block sizes (log2 slots, P x columns) the seed's stage1 runs: 4 or 8 slots per thread of 128.
pub const STAGE1_LOG_SLOTS: std::ops::RangeInclusive<u32> = 9..=10;

/// Words between word w and word w+1 of a slot in the seed's stage1 (`stage1_word_stride` in
/// `cuda/ntt/stage1_block.cu`): the padded slot count rounded up to 5 mod 32, which the bank
/// model (`self_sort::stage1_bank_ways`) found at most 2-way conflicted for the word loads and
/// stores of every block shape the plan makes.
pub const fn stage1_word_stride(slots: u32) -> u32 {
    let s = slots + (slots >> 5);
    s + (5u32.wrapping_sub(s) & 31)
}

/// Which kernel generation runs the column launches (stage1) of a three-stage plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage1 {
    /// Whichever measured faster on the H100 ([`Kernels::resolve`]).
    Auto,
    /// [`Kernel::Column`]: radix-4 passes through shared memory, a barrier each.
    Shared,
    /// [`Kernel::Stage1`] where the block size allows ([`STAGE1_LOG_SLOTS`]), else
    /// [`Kernel::Column`].
    Shuffle,
}

/// Which kernel generation runs each stage of a three-stage plan: today's shared-memory kernels or
/// the seed's (`../shared/seeds/004`, summarised in DESIGN.md). Every choice gives identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage2 {
    /// Whichever measured faster on the H100 for the field and Q ([`Kernels::resolve`]).
    Auto,
    /// [`Kernel::Middle`]: tile pairs staged in shared memory, one block each.
    Shared,
    /// [`Kernel::Stage2Warp`] where Q allows it (log Q <= [`STAGE2_WARP_MAX_LOG_Q`]), else
    /// [`Kernel::Middle`].
    Warp,
}

/// How much of a transform one block of the shared-memory kernels (column and middle stages)
/// holds. A small transform is a short chain of dependent products per thread on few SMs: narrow
/// blocks spread it over more blocks and warps. Every choice gives identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Blocks {
    /// Narrow while the call (the whole batch) holds at most 2^[`NARROW_MAX_LOG`] elements, wide
    /// beyond ([`Kernels::resolve_batch`]); wide wherever a stage generation is forced to the
    /// seed's stage1 (its blocks are 2^9-2^10 slots). Never clusters: on the H100 the cluster
    /// launch measured slower than narrow blocks at every size it runs (benches/NOTES.md, issue 17).
    Auto,
    /// 128 threads, up to 2^10 elements per column block (radix-4 groups, a group per thread)
    /// and 2^9 per middle block. One-block transforms (up to 2^[`MAX_SINGLE_LOG`]) are narrow
    /// whatever the choice.
    Wide,
    /// At most 2^[`NARROW_COLUMN_ELEMENTS_LOG`] elements per column block (2^[`NARROW_ELEMENTS_LOG`]
    /// per middle block) and a radix-2 butterfly per thread (half as many threads as elements),
    /// where the column or group fits; wide elsewhere.
    Narrow,
    /// One launch per transform on a cluster ([`Kernel::Cluster`]) for the sizes in
    /// [`CLUSTER_LOGS`], narrow blocks elsewhere and where the GPU runs no 16-block cluster
    /// (before sm_90). Measured slower than narrow blocks on the H100: forced only.
    Cluster,
}

/// Whether a transform's launches after its first are programmatic dependent launches (sm_90+:
/// each one's blocks are scheduled while the previous launch drains). Every choice gives
/// identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chain {
    /// Dependent from 2^[`DEPENDENT_LAUNCH_MIN_LOG`], and at every size with narrow blocks (whose
    /// launches are short enough for the launch latency to show: [`Kernels::resolve`]).
    Auto,
    /// Never.
    Plain,
    /// At every size.
    Dependent,
}

/// Where a column launch lets the next, dependent launch start (`allow_dependent_launch` in
/// `cuda/ntt/column.cu`; [`Chain`] says whether the next launch is dependent at all). Every
/// choice gives identical results: the next launch still waits for this one to finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// [`Trigger::Twiddled`] for a single transform of 2^[`TRIGGER_TWIDDLED_LOG`] on narrow
    /// blocks, [`Trigger::Layers`] elsewhere: what measured faster on an H200
    /// ([`Kernels::resolve_batch`]).
    Auto,
    /// Once the block's layers are done, before its stores.
    Layers,
    /// Right after the block's wait for the previous launch ([`flags::TRIGGER_START`]).
    Start,
    /// [`Trigger::Start`] on the column launches with [`flags::TWIDDLE_OUT`] (at 2^16 the first
    /// launch of natural order's two passes and of NR, which since the thirty-seventh session fold
    /// those twiddles into their layers: [`flags::NARROW`]; from 2^21 NR's first two),
    /// [`Trigger::Layers`] on the rest. Measured before the fold.
    Twiddled,
}

/// log2 of the single transform whose [`Trigger::Auto`] is [`Trigger::Twiddled`] (with narrow
/// blocks): there its NN and NR cells measured 1-5 us faster than with [`Trigger::Layers`] on an
/// H200 in two sessions, its RN cells level or slower, and every other size from 2^12 to 2^18
/// level or slower with the early trigger (2^15 and 2^17 by 0.6-3 us). The two launches of a
/// 2^16 transform just fit on the multiprocessors together; why the early trigger pays there
/// and not at 2^15, where they fit with room to spare, is not established (benches/NOTES.md,
/// thirty-fifth and thirty-sixth sessions). Batches keep [`Trigger::Layers`] (not measured).
pub const TRIGGER_TWIDDLED_LOG: u32 = 16;

/// Which pipe the column launches' Montgomery products run on (issue 18). Every choice gives
/// identical results (the products agree modulo p, every output is canonical).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Product {
    /// Whichever measured faster on the H100 ([`Kernels::resolve`]).
    Auto,
    /// The integer product (`lazy<P>::mul`, `cuda/field/mont.cuh`) everywhere.
    Integer,
    /// Wide column launches ([`flags::FP64_HYBRID`]; not the second of a [`Natural::TwoPass`]
    /// transform): the second product of each independent pair
    /// (a radix-4 group's x3·w1 beside x1·w1 and a3's beside a2's, every odd element's stage
    /// twiddle and scaling) on the FP64 pipe (`fp64::mul_ark`, five 52-bit limbs from DFMA
    /// pairs), so both pipes work at once. Narrow blocks, the middle stages and the seed's stage1
    /// keep the integer product.
    Hybrid,
}

/// The orderings a coset LDE (`NttEngine::coset_lde_in_place`: natural order in and out) runs its
/// two transforms in; either way the launches where they meet are one ([`fused_lde_launch`]).
/// Every choice gives identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lde {
    /// Whichever measured faster on the H100 for the size ([`Kernels::resolve`]).
    Auto,
    /// An inverse NN and a coset forward NN (self-sorting stages: 3 + 3 - 1 launches).
    Natural,
    /// An inverse NR (bit-reversed coefficients) and a coset forward RN: no reordering either,
    /// and 2 + 2 - 1 launches up to 2^20 (3 + 3 - 1 above).
    BitReversed,
}

/// How a natural-order (NN) transform of 2^9..2^[`TWO_PASS_MAX_LOG`] runs. Every choice gives
/// identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Natural {
    /// [`Natural::TwoPass`] for single transforms and batches up to 2^[`TWO_PASS_AUTO_MAX_LOG`]
    /// elements in all, unless a stage generation is forced (the seed's stage1 or stage2 run in
    /// the self-sorting stages only); [`Natural::SelfSorting`] elsewhere ([`Kernels::resolve`]).
    /// On the H100 two passes measured 3-26% faster at 2^9..2^17 and 0-8% slower at 2^18..2^20
    /// (benches/NOTES.md, "natural order to 2^20 in two launches").
    Auto,
    /// The self-sorting P x Q x P stages in place: three launches (module docs).
    SelfSorting,
    /// N = N1 x N2 four-step in two column launches through a scratch buffer of the call's size:
    /// N1-point columns of the data (stride N2) times w_N^(c*k1), stored into the scratch
    /// ([`flags::SCRATCH_OUT`]: entry k1 of column c at k1*N2 + c); then the scratch's rows (N2
    /// contiguous entries each) as the columns of the transposed matrix, stored at the natural
    /// index k1 + N1*k2 of the data ([`flags::SCRATCH_IN`]). One launch and one pass over
    /// memory fewer than the self-sorting stages, for the scratch's device memory; where
    /// the engine cannot hold a scratch (the host pipeline's column ranges, a coset LDE's fused
    /// launch) the self-sorting stages run.
    TwoPass,
}

/// Largest log2 size [`Natural::TwoPass`] runs (columns of at most 2^[`PREFERRED_LOG_P`] each);
/// beyond, the self-sorting stages whatever the choice.
pub const TWO_PASS_MAX_LOG: u32 = 2 * PREFERRED_LOG_P;

/// Largest log2 of a call's elements (transforms x size) [`Natural::Auto`] runs as
/// [`Natural::TwoPass`] (a scratch of at most 4 MiB): where the call fits in L2; from 2^18 the
/// second pass's strided accesses (one column per block at stride N1) cost more than the middle
/// stage's pass, with the stride on the loads or on the stores (benches/NOTES.md).
pub const TWO_PASS_AUTO_MAX_LOG: u32 = NARROW_MAX_LOG;

/// Largest log2 size whose coset LDE [`Lde::Auto`] runs as [`Lde::BitReversed`]: on the H100 it
/// measured 5-13% faster at 2^16/2^17 (three launches instead of five), within 2% either way from
/// 2^18, and 2% slower at 2^20 for both fields (benches/NOTES.md, "The coset LDE in NR/RN form").
pub const LDE_BIT_REVERSED_MAX_LOG: u32 = 19;

/// The kernel generation of every stage (see [`Stage2`]), the block geometry ([`Blocks`]), how
/// launches follow each other ([`Chain`], [`Trigger`]), the pipe of the column launches' products
/// ([`Product`]) and the orderings of a coset LDE's transforms ([`Lde`]). [`Kernels::default`] is what measured fastest on
/// the H100 (the trigger's rule: on an H200; benches/NOTES.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kernels {
    pub stage1: Stage1,
    pub stage2: Stage2,
    pub blocks: Blocks,
    pub chain: Chain,
    pub product: Product,
    pub lde: Lde,
    pub natural: Natural,
    pub trigger: Trigger,
}

impl Default for Kernels {
    fn default() -> Self {
        Kernels {
            stage1: Stage1::Auto,
            stage2: Stage2::Auto,
            blocks: Blocks::Auto,
            chain: Chain::Auto,
            product: Product::Auto,
            lde: Lde::Auto,
            natural: Natural::Auto,
            trigger: Trigger::Auto,
        }
    }
}

impl Kernels {
    /// The choice for one call: [`Stage2::Auto`] becomes the warp-only stage2 for BN254 Fr at
    /// Q = 8 from 2^17 up, where it measured 1-3% faster in every run (8 elements per lane, tiles
    /// as wide as the shared kernel's), and the shared-memory middle stage elsewhere (slower, or
    /// within noise at 2^13 and 2^15: benches/NOTES.md, "Issue 16"; BLS12-381 spills more
    /// registers at Q = 8 and measured 0.5-4% slower). [`Blocks::Auto`] becomes narrow up to
    /// 2^[`NARROW_MAX_LOG`] (wide with the seed's stage1 forced; for a batch, see
    /// [`Self::resolve_batch`]), and [`Chain::Auto`] dependent
    /// from 2^[`DEPENDENT_LAUNCH_MIN_LOG`] and with narrow blocks (benches/NOTES.md, "Issue 17").
    pub fn resolve(self, field: FieldId, plan: &Plan) -> Kernels {
        self.resolve_batch(field, plan, 1)
    }

    /// [`Self::resolve`] for a batch of `batch` transforms: [`Blocks::Auto`] takes narrow blocks
    /// only while the whole batch holds at most 2^[`NARROW_MAX_LOG`] elements. Narrow blocks
    /// shorten one thread's chain of products, which bounds a transform too small to fill the
    /// GPU; a batch that fills it is bound by the pipes' throughput, as a single transform from
    /// 2^18 is, where wide blocks measured faster.
    pub fn resolve_batch(self, field: FieldId, plan: &Plan, batch: usize) -> Kernels {
        let batch_log = batch.max(1).next_power_of_two().ilog2();
        let stage2 = match (self.stage2, plan) {
            (
                Stage2::Auto,
                Plan::ThreeStage {
                    log_n, log_q: 3, ..
                },
            ) if field == FieldId::Bn254Fr && *log_n >= 17 => Stage2::Warp,
            (Stage2::Auto, _) => Stage2::Shared,
            (chosen, _) => chosen,
        };
        // Auto: the shared-memory column kernel (the seed's stage1 is built and selectable, its
        // measurements are in benches/NOTES.md, "Issue 16").
        let stage1 = match self.stage1 {
            Stage1::Auto => Stage1::Shared,
            chosen => chosen,
        };
        let blocks = match self.blocks {
            Blocks::Auto
                if stage1 == Stage1::Shuffle || plan.log_n() + batch_log > NARROW_MAX_LOG =>
            {
                Blocks::Wide
            }
            Blocks::Auto => Blocks::Narrow,
            chosen => chosen,
        };
        let chain = match self.chain {
            Chain::Auto
                if plan.log_n() >= DEPENDENT_LAUNCH_MIN_LOG
                    || matches!(blocks, Blocks::Narrow | Blocks::Cluster) =>
            {
                Chain::Dependent
            }
            Chain::Auto => Chain::Plain,
            chosen => chosen,
        };
        // Auto: the integer product (the hybrid's measurements are in benches/NOTES.md, "Issue 18").
        let product = match self.product {
            Product::Auto => Product::Integer,
            chosen => chosen,
        };
        let lde = match self.lde {
            Lde::Auto if plan.log_n() <= LDE_BIT_REVERSED_MAX_LOG => Lde::BitReversed,
            Lde::Auto => Lde::Natural,
            chosen => chosen,
        };
        let natural = match self.natural {
            Natural::Auto
                if self.stage1 != Stage1::Shuffle
                    && self.stage2 != Stage2::Warp
                    && plan.log_n() + batch_log <= TWO_PASS_AUTO_MAX_LOG =>
            {
                Natural::TwoPass
            }
            Natural::Auto => Natural::SelfSorting,
            chosen => chosen,
        };
        let trigger = match self.trigger {
            Trigger::Auto
                if blocks == Blocks::Narrow
                    && batch <= 1
                    && plan.log_n() == TRIGGER_TWIDDLED_LOG =>
            {
                Trigger::Twiddled
            }
            Trigger::Auto => Trigger::Layers,
            chosen => chosen,
        };
        Kernels {
            stage1,
            stage2,
            blocks,
            chain,
            product,
            lde,
            natural,
            trigger,
        }
    }

    /// Parses `stage1=auto|shared|shuffle,stage2=auto|shared|warp,blocks=auto|wide|narrow|cluster,
    /// chain=auto|plain|dependent,product=auto|integer|hybrid,lde=auto|natural|bitreversed,
    /// natural=auto|selfsorting|twopass,trigger=auto|layers|start|twiddled`
    /// (`ZKNTT_KERNELS`'s syntax, in any order; empty is the default).
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut k = Kernels::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "stage2=auto" => k.stage2 = Stage2::Auto,
                "stage2=shared" => k.stage2 = Stage2::Shared,
                "stage2=warp" => k.stage2 = Stage2::Warp,
                "stage1=auto" => k.stage1 = Stage1::Auto,
                "stage1=shared" => k.stage1 = Stage1::Shared,
                "stage1=shuffle" => k.stage1 = Stage1::Shuffle,
                "blocks=auto" => k.blocks = Blocks::Auto,
                "blocks=wide" => k.blocks = Blocks::Wide,
                "blocks=narrow" => k.blocks = Blocks::Narrow,
                "blocks=cluster" => k.blocks = Blocks::Cluster,
                "chain=auto" => k.chain = Chain::Auto,
                "chain=plain" => k.chain = Chain::Plain,
                "chain=dependent" => k.chain = Chain::Dependent,
                "product=auto" => k.product = Product::Auto,
                "product=integer" => k.product = Product::Integer,
                "product=hybrid" => k.product = Product::Hybrid,
                "lde=auto" => k.lde = Lde::Auto,
                "lde=natural" => k.lde = Lde::Natural,
                "lde=bitreversed" => k.lde = Lde::BitReversed,
                "natural=auto" => k.natural = Natural::Auto,
                "natural=selfsorting" => k.natural = Natural::SelfSorting,
                "natural=twopass" => k.natural = Natural::TwoPass,
                "trigger=auto" => k.trigger = Trigger::Auto,
                "trigger=layers" => k.trigger = Trigger::Layers,
                "trigger=start" => k.trigger = Trigger::Start,
                "trigger=twiddled" => k.trigger = Trigger::Twiddled,
                other => {
                    return Err(format!(
                        "unknown kernel choice `{other}` (expected stage1=auto|shared|shuffle, \
                         stage2=auto|shared|warp, blocks=auto|wide|narrow|cluster, \
                         chain=auto|plain|dependent, product=auto|integer|hybrid, \
                         lde=auto|natural|bitreversed, natural=auto|selfsorting|twopass or \
                         trigger=auto|layers|start|twiddled)"
                    ));
                }
            }
        }
        Ok(k)
    }
}

/// Largest log2 Q the warp-only stage2 takes: a warp holds a tile pair of 2*T*T groups of Q
/// elements, 2, 4 or 8 elements per lane.
pub const STAGE2_WARP_MAX_LOG_Q: u32 = 6;

/// How [`Kernel::Stage2Warp`] lays a tile pair on a warp for one Q: each lane holds `2^log_el`
/// elements of one group, `2^log_lanes` lanes share a group, and the tiles are `2^log_tile`
/// groups square, so that 2 * T^2 * (lanes per group) = 32. Loads read T consecutive b, stores
/// write T consecutive a: segments of T * 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WarpShape {
    pub log_q: u32,
    pub log_el: u32,
    pub log_lanes: u32,
    pub log_tile: u32,
    /// Tile pairs one warp does (two where a lane holds 2 elements: 4 loads per lane in flight).
    pub pairs_per_warp: u32,
}

/// Warps per block of a warp-only launch.
pub const WARPS_PER_BLOCK: u32 = THREADS / 32;

impl WarpShape {
    /// The shape for 2^log_q (None above [`STAGE2_WARP_MAX_LOG_Q`]). Must match the dispatch in
    /// `cuda/ntt/stage2_warp.cu`.
    pub fn for_q(log_q: u32) -> Option<Self> {
        // 8 elements per lane at odd log Q >= 3 (tiles twice as wide as with 2, some spills at 128
        // registers): faster at Q = 8 (benches/NOTES.md, "Issue 16").
        let log_el = match log_q {
            1 => 1,
            3 | 5 => 3,
            2 | 4 | 6 => 2,
            _ => return None,
        };
        let log_lanes = log_q - log_el;
        Some(WarpShape {
            log_q,
            log_el,
            log_lanes,
            log_tile: (4 - log_lanes) / 2,
            pairs_per_warp: if log_el == 1 { 2 } else { 1 },
        })
    }

    /// Tile pairs (diagonal tiles included) of a P x P grid of groups: one warp each.
    pub fn pairs(&self, log_p: u32) -> u64 {
        let nt = 1u64 << (log_p - self.log_tile);
        nt * (nt + 1) / 2
    }

    /// Blocks of one transform's launch (the last warp's second pair may be past the end).
    pub fn blocks(&self, log_p: u32) -> u32 {
        self.pairs(log_p)
            .div_ceil((WARPS_PER_BLOCK * self.pairs_per_warp) as u64) as u32
    }
}

/// Tile pair `id` of the triangle ti <= tj, row by row of tj: (ti, tj). The kernel's decode.
pub fn tile_pair(id: u64) -> (u64, u64) {
    let mut tj = (((8 * id + 1) as f64).sqrt() as u64).saturating_sub(1) / 2;
    while (tj + 1) * (tj + 2) / 2 <= id {
        tj += 1;
    }
    while tj * (tj + 1) / 2 > id {
        tj -= 1;
    }
    (id - tj * (tj + 1) / 2, tj)
}

/// What a call asks of its launches besides the size: these set the flags and the extra passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Form {
    pub direction: Direction,
    pub ordering: Ordering,
    /// A coset offset other than 1 (scaling by its powers on the way in or out).
    pub coset: bool,
    /// The engine holds all N twiddle powers for this size (see [`flags::OMEGA_FULL`]).
    pub full_omega: bool,
    /// The engine can lend that full table times 1/N to a plain inverse with no mid-table launch
    /// ([`flags::OMEGA_SCALED`]); without it such an inverse keeps [`flags::POST_CONST`].
    pub scaled_omega: bool,
}

/// One kernel launch of a transform. Grids are per transform: `grid.1` is the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Launch {
    pub kernel: Kernel,
    /// NTT layers this launch computes (column launches: the column length S = 2^layers).
    pub layers: u32,
    /// Column launches: log2 of the sub-transforms (M contiguous elements, M/S columns of S
    /// entries at stride M/S) whose columns the launch works down; `log_n` except in the
    /// bit-reversed orderings' launches (module docs). Other kernels: `log_n`.
    pub log_m: u32,
    /// Blocks per transform.
    pub blocks: u32,
    /// Threads per block.
    pub threads: u32,
    /// Dynamic shared memory in bytes: [`smem_bytes`] (32-byte elements; the padded layout of
    /// stage1 and the cluster kernel, a little more than the wide column and middle blocks'
    /// quads use) or [`narrow_smem_bytes`].
    pub smem: u32,
    /// [`flags`] bits.
    pub flags: u32,
    /// log2 of the columns one block holds (column launches), of the tile side (middle launches).
    pub log_cols: u32,
    /// May be launched while the previous launch of the same transform drains.
    pub dependent: bool,
    /// A column launch over the whole matrix that may also run a range of columns at a time.
    pub by_columns: bool,
}

/// The launches of a bit-reversed ordering (module docs) with columns of 2^`sizes[i]` entries (NR's
/// order; each at most 2^MAX_LOG_P, summing to log_n): NR's launch i works down the columns
/// of the sub-transforms of 2^(log_n - `sizes[0]` - .. - `sizes[i-1]`), times the twiddles of that
/// sub-transform (all but the last), entries to bit-reversed rows; RN runs them last to first,
/// rows read bit-reversed, twiddles on the way in. Scaling flags go on the first and last. With
/// `mid_log_p` (the plan's P, whose middle-stage table the engine holds), the launch whose
/// sub-transforms are N/P reads its twiddles there ([`flags::MID_TWIDDLES`]). `kernels`: its
/// `blocks` and `chain` as [`Kernels::resolve`] leaves them (Auto: wide, plain).
pub fn ordered_launches(
    log_n: u32,
    sizes: &[u32],
    mid_log_p: Option<u32>,
    form: Form,
    kernels: Kernels,
) -> Vec<Launch> {
    debug_assert_eq!(sizes.iter().sum::<u32>(), log_n);
    debug_assert!(
        sizes
            .iter()
            .all(|&s| (1..=MAX_LOG_P).contains(&s) || log_n == 0)
    );
    let omega = if form.full_omega {
        flags::OMEGA_FULL
    } else {
        0
    };
    let (order, twiddle) = match form.ordering {
        Ordering::RN => (flags::IN_BITREV, flags::TWIDDLE_IN | omega),
        _ => (flags::OUT_BITREV, flags::TWIDDLE_OUT | omega),
    };
    let mut log_m = log_n;
    let mut stages: Vec<(u32, u32, u32)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &log_s)| {
            let tw = match i + 1 < sizes.len() {
                false => 0,
                true if mid_log_p == Some(log_n - log_m) => {
                    (twiddle & !flags::OMEGA_FULL) | flags::MID_TWIDDLES
                }
                true => twiddle,
            };
            let stage = (log_s, log_m, tw);
            log_m -= log_s;
            stage
        })
        .collect();
    if form.ordering == Ordering::RN {
        stages.reverse();
    }
    let (pre, post) = scale_flags(form);
    let last = stages.len() - 1;
    let dependent = kernels.chain == Chain::Dependent;
    stages
        .into_iter()
        .enumerate()
        .map(|(i, (log_s, log_m, tw))| {
            let scale = if i == 0 { pre } else { 0 } | if i == last { post } else { 0 };
            let flags = tw | scale | order;
            column_launch(
                log_n,
                log_s,
                log_m,
                flags,
                dependent && i > 0,
                kernels.blocks,
            )
        })
        .collect()
}

/// One column launch of a transform of 2^log_n: 2^log_s-entry columns in sub-transforms of
/// 2^log_m elements, the block geometry of [`column_geometry`], narrow-marked where it is.
fn column_launch(
    log_n: u32,
    log_s: u32,
    log_m: u32,
    flags: u32,
    dependent: bool,
    blocks: Blocks,
) -> Launch {
    let (log_cols, threads) = column_geometry(log_n, log_s, blocks);
    let l = Launch {
        kernel: Kernel::Column,
        layers: log_s,
        log_m,
        blocks: 1u32 << (log_n - log_s - log_cols),
        threads,
        smem: smem_bytes(1 << (log_s + log_cols)),
        flags,
        log_cols,
        dependent,
        by_columns: false,
    };
    mark_narrow(l, log_s + log_cols)
}

/// The launch that fuses a coset low-degree extension's two transforms where they meet: `last`,
/// the inverse transform's last launch, and `first`, the coset forward transform's first, of the
/// same size, either both natural order (NN) or an inverse NR and a coset RN ([`Lde`]). Both are
/// then column launches on the same elements: in NN down the same columns (element i*R + c of
/// column c); in NR/RN the same contiguous segments, which the inverse NR leaves bit-reversed
/// and the coset RN reads bit-reversed. So one launch does both: the inverse's column NTT, each
/// element times g^e / N (e its index j, or rev_N(j) in NR/RN, where the coset RN reads position
/// j as coefficient rev_N(j)), the forward's column NTT and, in NN, its stage twiddles (`first`'s
/// TWIDDLE_OUT). Its geometry is theirs; an ordered one carries IN_BITREV (the
/// `ntt_column_lde_ordered_*` symbol). None where they differ (the seed's stage1 forced, other
/// orderings, a two-pass transform's launches through its scratch, a launch that carries the
/// inverse's 1/N in its mid table): the caller then runs both. Where an earlier launch of the
/// inverse carries that 1/N ([`flags::MID_SCALED`]), the fused launch's table is g^e alone.
pub fn fused_lde_launch(last: &Launch, first: &Launch) -> Option<Launch> {
    let geometry = |l: &Launch| {
        (
            l.kernel, l.layers, l.log_m, l.blocks, l.threads, l.smem, l.log_cols,
        )
    };
    let order = |l: &Launch| l.flags & (flags::IN_BITREV | flags::OUT_BITREV);
    let ordered = match (order(last), order(first)) {
        (0, 0) => false,
        (flags::OUT_BITREV, flags::IN_BITREV) => true,
        _ => return None,
    };
    let stage_twiddles = flags::TWIDDLE_IN | flags::TWIDDLE_OUT;
    let scratch = flags::SCRATCH_OUT | flags::SCRATCH_IN;
    if last.kernel != Kernel::Column
        || (last.flags | first.flags) & (scratch | flags::MID_SCALED | flags::OMEGA_SCALED) != 0
        || geometry(last) != geometry(first)
        || last.flags & flags::NARROW != first.flags & flags::NARROW
        || (ordered && (last.flags | first.flags) & stage_twiddles != 0)
    {
        return None;
    }
    let keep = flags::TWIDDLE_OUT | flags::OMEGA_FULL | flags::NARROW | flags::IN_BITREV;
    Some(Launch {
        flags: first.flags & keep | flags::LDE,
        ..*last
    })
}

/// The one launch of a transform of 2^log_n (in [`CLUSTER_LOGS`]) on a cluster
/// ([`Kernel::Cluster`], `cuda/ntt/cluster.cu`): N = C x L, C = 2^[`CLUSTER_LOG`] blocks (one
/// cluster per transform), each holding L elements twice in shared memory (its C-point columns,
/// then its L-point row), L/4 threads (a radix-4 group each) between a warp and 256. `layers` is
/// log2 L (the sub-NTT table the launch reads; its C-point columns read every (L/C)-th entry),
/// `log_cols` log2 C. The ordering's flags say where the input and output sit; the scalings as in
/// any launch (both on the one launch).
pub fn cluster_launch(log_n: u32, form: Form) -> Launch {
    debug_assert!(CLUSTER_LOGS.contains(&log_n));
    let (pre, post) = scale_flags(form);
    let log_l = log_n - CLUSTER_LOG;
    let mut flags = pre | post;
    if form.full_omega {
        flags |= flags::OMEGA_FULL;
    }
    if form.ordering.input_reversed() {
        flags |= flags::IN_BITREV;
    }
    if form.ordering.output_reversed() {
        flags |= flags::OUT_BITREV;
    }
    Launch {
        kernel: Kernel::Cluster,
        layers: log_l,
        log_m: log_n,
        blocks: 1 << CLUSTER_LOG,
        threads: (1u32 << (log_l - 2)).clamp(32, 256),
        smem: 2 * smem_bytes(1 << log_l),
        flags,
        log_cols: CLUSTER_LOG,
        dependent: false,
        by_columns: false,
    }
}

/// The two column launches of a [`Natural::TwoPass`] transform of 2^log_n (N1 = 2^(log_n/2), N2 =
/// N/N1, the split of the bit-reversed orderings' two launches): N1-point columns at stride N2,
/// times w_N^(c*k1), into the scratch ([`flags::SCRATCH_OUT`], with `first`'s flags); then the
/// scratch's contiguous N2-point rows as columns, stored at stride N1 into the data
/// ([`flags::SCRATCH_IN`], with `last`'s). `kernels`' blocks and chain as resolved.
fn two_pass_launches(log_n: u32, first: u32, last: u32, kernels: Kernels) -> Vec<Launch> {
    let dependent = kernels.chain == Chain::Dependent;
    let launch = |log_s: u32, flags: u32, dep: bool| {
        column_launch(log_n, log_s, log_n, flags, dep, kernels.blocks)
    };
    let log_n1 = log_n / 2;
    vec![
        launch(
            log_n1,
            first | flags::TWIDDLE_OUT | flags::SCRATCH_OUT,
            false,
        ),
        launch(log_n - log_n1, last | flags::SCRATCH_IN, dependent),
    ]
}

/// The scaling flags of a call: (first launch's, last launch's).
fn scale_flags(form: Form) -> (u32, u32) {
    let pre = if form.coset && form.direction == Direction::Forward {
        flags::PRE_SCALE
    } else {
        0
    };
    let post = match form.direction {
        Direction::Forward => 0,
        // The coset inverse's table holds g^-k / N (one product per element, not two).
        Direction::Inverse if form.coset => flags::POST_SCALE,
        Direction::Inverse => flags::POST_CONST,
    };
    (pre, post)
}

/// Whether a launch multiplies every element by an entry of the mid table (w_M^e, M = N/P): a
/// middle launch, or a column launch whose stage twiddles come from there ([`flags::MID_TWIDDLES`]).
fn reads_mid_table(l: &Launch) -> bool {
    match l.kernel {
        Kernel::Middle | Kernel::Stage2Warp => true,
        // MID_TWIDDLES only ever qualifies a TWIDDLE_IN or TWIDDLE_OUT.
        Kernel::Column => l.flags & flags::MID_TWIDDLES != 0,
        Kernel::Cluster | Kernel::Stage1 => false,
    }
}

/// Whether a launch multiplies every element by an entry of the full stage-twiddle table (w_N^e):
/// a column launch with [`flags::OMEGA_FULL`] whose stage twiddles are not the mid table's.
fn reads_full_omega(l: &Launch) -> bool {
    let twiddle = flags::TWIDDLE_IN | flags::TWIDDLE_OUT;
    l.kernel == Kernel::Column
        && l.flags & flags::OMEGA_FULL != 0
        && l.flags & twiddle != 0
        && l.flags & (flags::MID_TWIDDLES | flags::LDE) == 0
}

/// Moves a plain inverse's 1/N ([`flags::POST_CONST`], a product per element in the last launch)
/// into the twiddle table of a launch that already multiplies every element by one of its
/// entries: one product per element fewer. The mid table first ([`flags::MID_SCALED`]: the engine
/// reads w_M^e / N there; the natural order's three stages and the bit-reversed orderings' three
/// launches), else, where the engine lends it (`scaled_omega`), the full table of a launch's stage
/// twiddles ([`flags::OMEGA_SCALED`]: w_N^e / N; the two-launch bit-reversed orderings and the
/// two-pass natural order, whose first or last launch reads it). Single-block and cluster
/// transforms, and those with neither table, keep POST_CONST.
fn fold_n_inv(launches: &mut [Launch], scaled_omega: bool) {
    if !launches.iter().any(|l| l.flags & flags::POST_CONST != 0) {
        return;
    }
    let (i, flag) = match launches.iter().position(reads_mid_table) {
        Some(i) => (i, flags::MID_SCALED),
        None => match launches.iter().position(reads_full_omega) {
            Some(i) if scaled_omega => (i, flags::OMEGA_SCALED),
            _ => return,
        },
    };
    for l in launches.iter_mut() {
        l.flags &= !flags::POST_CONST;
    }
    launches[i].flags |= flag;
}

/// (log2 columns per block, threads) of a column launch of 2^log_s-entry columns in a transform
/// of 2^log_n: [`narrow_columns`] where `blocks` is Narrow (or Cluster, at a size no cluster
/// runs) and a column fits, else the wide geometry ([`column_block_log`], [`THREADS`]).
pub fn column_geometry(log_n: u32, log_s: u32, blocks: Blocks) -> (u32, u32) {
    match blocks {
        Blocks::Narrow | Blocks::Cluster => narrow_columns(log_n, log_s),
        Blocks::Auto | Blocks::Wide => None,
    }
    .unwrap_or((column_block_log(log_n, log_s), THREADS))
}

/// Narrow column blocks: 2^NARROW_MIN_ELEMENTS_LOG elements (or one column, if longer), half
/// as many threads (a warp at least); None where a column is longer than a narrow block
/// (2^[`NARROW_COLUMN_ELEMENTS_LOG`]).
pub fn narrow_columns(log_n: u32, log_s: u32) -> Option<(u32, u32)> {
    if log_s > NARROW_COLUMN_ELEMENTS_LOG {
        return None;
    }
    let log_cols = NARROW_MIN_ELEMENTS_LOG
        .saturating_sub(log_s)
        .min(log_n - log_s);
    Some((log_cols, narrow_threads(log_s + log_cols)))
}

/// (log2 tile side, threads) of a middle launch of 2^log_q-point groups, P = 2^log_p:
/// [`narrow_tiles`] where `blocks` is Narrow (or Cluster) and a tile pair fits, else the wide
/// geometry (tile pairs of up to 2^MIDDLE_ELEMENTS_LOG elements, [`THREADS`]).
pub fn middle_geometry(log_p: u32, log_q: u32, blocks: Blocks) -> (u32, u32) {
    match blocks {
        Blocks::Narrow | Blocks::Cluster => narrow_tiles(log_p, log_q),
        Blocks::Auto | Blocks::Wide => None,
    }
    .unwrap_or((
        (MIDDLE_ELEMENTS_LOG.saturating_sub(log_q) / 2).min(log_p),
        THREADS,
    ))
}

/// Narrow middle blocks: tiles of T x T groups with 2 T^2 Q at most 2^NARROW_ELEMENTS_LOG
/// (log2 T, threads); None where Q is too long.
pub fn narrow_tiles(log_p: u32, log_q: u32) -> Option<(u32, u32)> {
    if log_q >= NARROW_ELEMENTS_LOG {
        return None;
    }
    let log_tile = ((NARROW_ELEMENTS_LOG - 1 - log_q) / 2).min(log_p);
    Some((log_tile, narrow_threads(1 + 2 * log_tile + log_q)))
}

/// Threads of a narrow block of 2^log_e elements: a butterfly each, a warp at least.
fn narrow_threads(log_e: u32) -> u32 {
    (1u32 << log_e.max(1) >> 1).max(32)
}

/// log2 of the columns of 2^log_s entries one column-launch block holds, for a transform of
/// 2^log_n: 2^COLUMN_ELEMENTS_LOG elements where there are enough columns, fewer (down to
/// 2^MIN_COLUMN_ELEMENTS_LOG) where that leaves fewer than 2^MIN_COLUMN_BLOCKS_LOG blocks.
pub fn column_block_log(log_n: u32, log_s: u32) -> u32 {
    let mut log_cols = COLUMN_ELEMENTS_LOG.saturating_sub(log_s).min(log_n - log_s);
    while log_cols > 0
        && log_s + log_cols > MIN_COLUMN_ELEMENTS_LOG
        && log_n - log_s - log_cols < MIN_COLUMN_BLOCKS_LOG
    {
        log_cols -= 1;
    }
    log_cols
}

/// Shared memory for `slots` elements in the padded column-major layout of `ntt_common.cuh`
/// (`SmemElements`: stage1 and the cluster kernel). The wide column and middle blocks, whose
/// elements are in quads (`SmemQuads`: 32 bytes a slot, at least 8 slots, no padding), are given
/// the same: a little more than they use, as every wide block holds at least 2^9 slots.
pub const fn smem_bytes(slots: u32) -> u32 {
    32 * (slots + (slots >> 5) + 1)
}

/// Shared memory of a narrow block ([`flags::NARROW`]): `slots` elements and the layer table of
/// its 2^log_s-point sub-NTTs' twiddles (2^log_s slots), each in the quad layout of
/// `ntt_common.cuh` (`SmemQuads`: no padding, at least 8 slots).
pub const fn narrow_smem_bytes(slots: u32, log_s: u32) -> u32 {
    const fn plane(slots: u32) -> u32 {
        if slots < 8 { 8 } else { slots }
    }
    32 * (plane(slots) + plane(1 << log_s))
}

/// Marks a column or middle launch whose block holds 2^log_e elements as narrow
/// ([`flags::NARROW`]) where its threads are at least half its elements.
fn mark_narrow(mut l: Launch, log_e: u32) -> Launch {
    if 2 * l.threads >= 1 << log_e {
        l.flags |= flags::NARROW;
        l.smem = narrow_smem_bytes(1 << log_e, l.layers);
    }
    l
}

/// The launches of one transform size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plan {
    /// One block per transform, all layers in shared memory.
    Single { log_n: u32 },
    /// N = P x Q x P in three launches.
    ThreeStage {
        log_n: u32,
        log_p: u32,
        log_q: u32,
        /// log2 of the columns one column-stage block holds.
        log_cols: u32,
        /// log2 of the tile side of the middle stage (tiles of T x T groups).
        log_tile: u32,
    },
}

impl Plan {
    /// The plan for 2^log_n. `DomainTooLarge` above 2^(2*MAX_LOG_P + MAX_LOG_Q) = 2^32.
    pub fn for_size(log_n: u32) -> Result<Self, Error> {
        if log_n <= MAX_SINGLE_LOG {
            return Ok(Plan::Single { log_n });
        }
        let max = 2 * MAX_LOG_P + MAX_LOG_Q;
        if log_n > max {
            return Err(Error::DomainTooLarge { log_n, max });
        }
        // The middle stage gets at least two layers (never a launch of one layer), the columns as
        // many as fit in a block, balanced; P = 2^11 only where Q would pass its maximum.
        let mut log_p = ((log_n - 2) / 2).min(PREFERRED_LOG_P);
        if log_n >= 18 {
            // An even P: its columns are radix-4 passes only, faster from 2^18 up; below, odd P
            // is faster (the splits compared are in benches/NOTES.md).
            log_p &= !1;
        }
        if log_n - 2 * log_p > MAX_LOG_Q {
            log_p = (log_n - MAX_LOG_Q).div_ceil(2);
        }
        Ok(Self::three_stage(log_n, log_p))
    }

    /// The three-stage plan with a given P (for tests of every split). Needs 1 <= log_p and
    /// log_n - 2*log_p in 0..=MAX_LOG_Q.
    pub fn three_stage(log_n: u32, log_p: u32) -> Self {
        let log_q = log_n - 2 * log_p;
        let log_cols = column_block_log(log_n, log_p);
        let (log_tile, _) = middle_geometry(log_p, log_q, Blocks::Wide);
        Plan::ThreeStage {
            log_n,
            log_p,
            log_q,
            log_cols,
            log_tile,
        }
    }

    pub fn log_n(&self) -> u32 {
        match *self {
            Plan::Single { log_n } | Plan::ThreeStage { log_n, .. } => log_n,
        }
    }

    /// log2 of the column sizes of the bit-reversed orderings' launches, first to last (NR's
    /// order; [`ordered_launches`]): two launches of at most 2^PREFERRED_LOG_P each up to 2^20
    /// (one launch and one twiddle pass fewer than natural order), else P, Q, P (blocks of 2^11
    /// slots, which two launches would need at 2^21 and 2^22, measured slower: benches/NOTES.md).
    pub fn ordered_columns(&self) -> Vec<u32> {
        match *self {
            Plan::Single { log_n } => vec![log_n],
            Plan::ThreeStage { log_n, .. } if log_n <= 2 * PREFERRED_LOG_P => {
                vec![log_n / 2, log_n - log_n / 2]
            }
            Plan::ThreeStage { log_p, log_q, .. } => [log_p, log_q, log_p]
                .into_iter()
                .filter(|&s| s > 0)
                .collect(),
        }
    }

    /// The launches of a transform of this size in `form`, in order, with the stages' kernels
    /// chosen by `kernels` (resolved for the call's field by [`Kernels::resolve`]; an unresolved
    /// [`Stage2::Auto`] is the shared kernel). Natural order runs the self-sorting P x Q x P
    /// stages; the bit-reversed orderings run three column launches (module docs) on the column
    /// kernel, whatever `kernels` says.
    /// Wide column launches carry [`flags::FP64_HYBRID`] where `kernels.product` is
    /// [`Product::Hybrid`] (an unresolved Auto is the integer product).
    /// Column launches carry [`flags::TRIGGER_START`] where `kernels.trigger` is
    /// [`Trigger::Start`], and those with [`flags::TWIDDLE_OUT`] where it is [`Trigger::Twiddled`]
    /// (a coset LDE's fused launch, [`fused_lde_launch`], keeps the trigger after its layers).
    /// An inverse's 1/N goes on the launch that multiplies every element by a mid-table twiddle
    /// where there is one, else (`form.scaled_omega`) by a full-table stage twiddle
    /// ([`fold_n_inv`]), else on the last launch ([`flags::POST_CONST`]).
    pub fn launches(&self, form: Form, kernels: Kernels) -> Vec<Launch> {
        let mut out = self.launches_of_stages(form, kernels);
        fold_n_inv(&mut out, form.scaled_omega);
        for l in out.iter_mut().filter(|l| l.kernel == Kernel::Column) {
            let start = match kernels.trigger {
                Trigger::Start => true,
                Trigger::Twiddled => l.flags & flags::TWIDDLE_OUT != 0,
                Trigger::Auto | Trigger::Layers => false,
            };
            if start {
                l.flags |= flags::TRIGGER_START;
            }
        }
        if kernels.product == Product::Hybrid {
            for l in out.iter_mut() {
                // A two-pass transform's second launch has no hybrid symbol (it loads transposed).
                if l.kernel == Kernel::Column && l.flags & (flags::NARROW | flags::SCRATCH_IN) == 0
                {
                    l.flags |= flags::FP64_HYBRID;
                }
            }
        }
        out
    }

    fn launches_of_stages(&self, form: Form, kernels: Kernels) -> Vec<Launch> {
        let log_n = self.log_n();
        if kernels.blocks == Blocks::Cluster && CLUSTER_LOGS.contains(&log_n) {
            return vec![cluster_launch(log_n, form)];
        }
        if form.ordering != Ordering::NN {
            let mid = match *self {
                Plan::ThreeStage { log_p, .. } => Some(log_p),
                Plan::Single { .. } => None,
            };
            return ordered_launches(log_n, &self.ordered_columns(), mid, form, kernels);
        }
        let (pre, post) = scale_flags(form);
        let omega = if form.full_omega {
            flags::OMEGA_FULL
        } else {
            0
        };
        if kernels.natural == Natural::TwoPass
            && matches!(self, Plan::ThreeStage { .. })
            && log_n <= TWO_PASS_MAX_LOG
        {
            return two_pass_launches(log_n, pre | omega, post, kernels);
        }
        let launch = |kernel, layers, blocks, smem, flags, log_cols| Launch {
            kernel,
            layers,
            log_m: log_n,
            blocks,
            threads: THREADS,
            smem,
            flags,
            log_cols,
            dependent: false,
            by_columns: false,
        };
        let mut out = Vec::with_capacity(3);
        match *self {
            Plan::Single { log_n } => {
                let l = Launch {
                    threads: narrow_threads(log_n).min(THREADS),
                    ..launch(
                        Kernel::Column,
                        log_n,
                        1,
                        smem_bytes(1 << log_n),
                        pre | post,
                        0,
                    )
                };
                out.push(mark_narrow(l, log_n));
            }
            Plan::ThreeStage {
                log_n,
                log_p,
                log_q,
                ..
            } => {
                // The seed's stage1 keeps its wide blocks (2^9-2^10 slots).
                let blocks = match kernels.stage1 {
                    Stage1::Shuffle => Blocks::Wide,
                    _ => kernels.blocks,
                };
                let (log_cols, column_threads) = column_geometry(log_n, log_p, blocks);
                let column_blocks = 1u32 << (log_n - log_p - log_cols);
                let slots_log = log_p + log_cols;
                // Auto here (not resolved for a field) is the shared kernel.
                let (column, column_smem) = match kernels.stage1 {
                    Stage1::Shuffle if STAGE1_LOG_SLOTS.contains(&slots_log) => {
                        (Kernel::Stage1, 32 * stage1_word_stride(1 << slots_log))
                    }
                    _ => (Kernel::Column, smem_bytes(1 << slots_log)),
                };
                let (log_tile, middle_threads) = middle_geometry(log_p, log_q, kernels.blocks);
                let tiles = 1u32 << (log_p - log_tile);
                let first = Launch {
                    by_columns: true,
                    threads: column_threads,
                    ..launch(
                        column,
                        log_p,
                        column_blocks,
                        column_smem,
                        pre | flags::TWIDDLE_OUT | omega,
                        log_cols,
                    )
                };
                // Auto here (not resolved for a field) is the shared kernel.
                let warp = match kernels.stage2 {
                    Stage2::Warp => WarpShape::for_q(log_q),
                    Stage2::Shared | Stage2::Auto => None,
                };
                let middle = match warp {
                    Some(w) => launch(Kernel::Stage2Warp, log_q, w.blocks(log_p), 0, 0, w.log_tile),
                    None => Launch {
                        threads: middle_threads,
                        ..launch(
                            Kernel::Middle,
                            log_q,
                            tiles * tiles,
                            smem_bytes(2 << (2 * log_tile + log_q)),
                            0,
                            log_tile,
                        )
                    },
                };
                let last = Launch {
                    flags: post,
                    ..first
                };
                let (first, last) = match column {
                    Kernel::Column => (mark_narrow(first, slots_log), mark_narrow(last, slots_log)),
                    _ => (first, last),
                };
                let middle = match middle.kernel {
                    Kernel::Middle => mark_narrow(middle, 1 + 2 * log_tile + log_q),
                    _ => middle,
                };
                out.extend([first, middle, last]);
            }
        }
        let dependent = kernels.chain == Chain::Dependent;
        for l in out.iter_mut().skip(1) {
            l.dependent = dependent;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resolved for 2^18 and up (dependent launches).
    const SHARED: Kernels = Kernels {
        stage1: Stage1::Shared,
        stage2: Stage2::Shared,
        blocks: Blocks::Wide,
        chain: Chain::Dependent,
        product: Product::Integer,
        lde: Lde::Natural,
        natural: Natural::SelfSorting,
        trigger: Trigger::Layers,
    };

    /// Narrow blocks' shared memory in literal bytes, as `SmemQuads` lays it out in
    /// `ntt_common.cuh`: two 16-byte quads a slot, planes of at least 8 slots, the elements then
    /// the layer twiddles (a formula checked only against itself would not see either side move).
    #[test]
    fn narrow_smem_bytes_literal() {
        for (slots, log_s, bytes) in [
            (1, 0, 512),
            (8, 3, 512),
            (64, 6, 4096),
            (128, 6, 6144),
            (256, 8, 16384),
            (512, 9, 32768),
        ] {
            assert_eq!(
                narrow_smem_bytes(slots, log_s),
                bytes,
                "{slots} slots, 2^{log_s}"
            );
        }
    }

    /// Trigger::Start marks every column launch (and only those) with TRIGGER_START,
    /// Trigger::Twiddled the column launches with TWIDDLE_OUT, changing nothing else; Auto is
    /// Twiddled for a single transform of 2^TRIGGER_TWIDDLED_LOG on narrow blocks (its NN and NR
    /// first launches marked, RN's none) and Layers, which marks none, everywhere else.
    #[test]
    fn trigger_marks_column_launches() {
        for (text, want) in [
            ("trigger=start", Trigger::Start),
            ("trigger=layers", Trigger::Layers),
            ("trigger=twiddled", Trigger::Twiddled),
            ("trigger=auto", Trigger::Auto),
        ] {
            assert_eq!(Kernels::parse(text).unwrap().trigger, want);
        }
        let bn = FieldId::Bn254Fr;
        for log_n in 1..=28 {
            let plan = Plan::for_size(log_n).unwrap();
            let auto = Kernels::default().resolve(bn, &plan);
            let auto_trigger = if log_n == TRIGGER_TWIDDLED_LOG {
                Trigger::Twiddled
            } else {
                Trigger::Layers
            };
            assert_eq!(auto.trigger, auto_trigger, "2^{log_n}");
            for batch in [2, 4] {
                let k = Kernels::default().resolve_batch(bn, &plan, batch);
                assert_eq!(k.trigger, Trigger::Layers, "2^{log_n} x {batch}");
            }
            let wide = Kernels {
                blocks: Blocks::Wide,
                ..Kernels::default()
            };
            assert_eq!(wide.resolve(bn, &plan).trigger, Trigger::Layers);
            let layers_k = Kernels {
                trigger: Trigger::Layers,
                ..auto
            };
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                let form = Form {
                    ordering,
                    ..Form::default()
                };
                let layers = plan.launches(form, layers_k);
                for trigger in [Trigger::Start, Trigger::Twiddled] {
                    let marked = plan.launches(form, Kernels { trigger, ..auto });
                    assert_eq!(layers.len(), marked.len());
                    for (l, s) in layers.iter().zip(&marked) {
                        assert_eq!(l.flags & flags::TRIGGER_START, 0);
                        let start = s.kernel == Kernel::Column
                            && (trigger == Trigger::Start || l.flags & flags::TWIDDLE_OUT != 0);
                        let want = if start { flags::TRIGGER_START } else { 0 };
                        assert_eq!(
                            s.flags & flags::TRIGGER_START,
                            want,
                            "2^{log_n} {ordering:?} {trigger:?}"
                        );
                        assert_eq!(
                            Launch {
                                flags: s.flags & !flags::TRIGGER_START,
                                ..*s
                            },
                            *l
                        );
                    }
                }
                if log_n == TRIGGER_TWIDDLED_LOG {
                    // The auto choice at 2^16: NN's and NR's first launch start early, RN's none.
                    let marks: Vec<bool> = plan
                        .launches(form, auto)
                        .iter()
                        .map(|l| l.flags & flags::TRIGGER_START != 0)
                        .collect();
                    let want = match ordering {
                        Ordering::RN => vec![false, false],
                        _ => vec![true, false],
                    };
                    assert_eq!(marks, want, "2^16 {ordering:?}");
                }
            }
        }
    }

    /// The hybrid product marks the wide column launches of every size and ordering, nothing else;
    /// the integer product marks none, and Auto resolves to it.
    #[test]
    fn hybrid_product_marks_wide_column_launches() {
        let hybrid = Kernels {
            product: Product::Hybrid,
            ..SHARED
        };
        assert_eq!(
            Kernels::parse("product=hybrid").unwrap().product,
            Product::Hybrid
        );
        assert_eq!(
            Kernels::parse("product=integer").unwrap().product,
            Product::Integer
        );
        let bn = FieldId::Bn254Fr;
        for log_n in 1..=28 {
            let plan = Plan::for_size(log_n).unwrap();
            assert_eq!(
                Kernels::default().resolve(bn, &plan).product,
                Product::Integer
            );
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                let form = Form {
                    ordering,
                    ..Form::default()
                };
                for blocks in [Blocks::Wide, Blocks::Narrow] {
                    let k = Kernels { blocks, ..hybrid };
                    let marked = plan.launches(form, k);
                    let plain = plan.launches(form, Kernels { blocks, ..SHARED });
                    assert_eq!(marked.len(), plain.len());
                    for (m, p) in marked.iter().zip(&plain) {
                        assert_eq!(p.flags & flags::FP64_HYBRID, 0);
                        let want = m.kernel == Kernel::Column && m.flags & flags::NARROW == 0;
                        assert_eq!(
                            m.flags & flags::FP64_HYBRID != 0,
                            want,
                            "2^{log_n} {ordering:?}"
                        );
                        assert_eq!(
                            Launch {
                                flags: m.flags & !flags::FP64_HYBRID,
                                ..*m
                            },
                            *p
                        );
                    }
                }
            }
        }
    }

    /// The fused LDE launch exists for every natural-order size and geometry the column kernel
    /// runs, carries the forward's stage twiddles and nothing of either transform's scaling, and
    /// is refused where the launches differ (the seed's stage1, bit-reversed orderings).
    #[test]
    fn fused_lde_launch_of_every_size() {
        let bn = FieldId::Bn254Fr;
        for log_n in 1..=28 {
            let plan = Plan::for_size(log_n).unwrap();
            let full_omega = log_n <= 22;
            let inverse = Form {
                direction: Direction::Inverse,
                full_omega,
                ..Form::default()
            };
            let forward = Form {
                coset: true,
                full_omega,
                ..Form::default()
            };
            for blocks in [Blocks::Auto, Blocks::Wide, Blocks::Narrow] {
                let resolved = Kernels {
                    blocks,
                    ..Kernels::default()
                }
                .resolve(bn, &plan);
                // Two passes through a scratch do not fuse; the engine's LDE runs in place.
                let (inv, fwd) = (
                    plan.launches(inverse, resolved),
                    plan.launches(forward, resolved),
                );
                if resolved.natural == Natural::TwoPass && log_n > MAX_SINGLE_LOG {
                    assert_eq!(fused_lde_launch(inv.last().unwrap(), &fwd[0]), None);
                }
                let k = Kernels {
                    natural: Natural::SelfSorting,
                    ..resolved
                };
                let inv = plan.launches(inverse, k);
                let fwd = plan.launches(forward, k);
                if k.blocks == Blocks::Cluster && CLUSTER_LOGS.contains(&log_n) {
                    // One launch each: nothing to fuse, the engine runs both.
                    assert_eq!(fused_lde_launch(inv.last().unwrap(), &fwd[0]), None);
                    continue;
                }
                let fused = fused_lde_launch(inv.last().unwrap(), &fwd[0])
                    .unwrap_or_else(|| panic!("2^{log_n} {blocks:?}"));
                assert_eq!(fused.kernel, Kernel::Column);
                assert_eq!(fused.flags & flags::LDE, flags::LDE);
                let scaling = flags::PRE_SCALE | flags::POST_SCALE | flags::POST_CONST;
                assert_eq!(fused.flags & scaling, 0, "2^{log_n}");
                assert_eq!(
                    fused.flags & (flags::TWIDDLE_OUT | flags::NARROW),
                    fwd[0].flags & (flags::TWIDDLE_OUT | flags::NARROW)
                );
                assert_eq!(
                    (fused.layers, fused.blocks, fused.smem),
                    (fwd[0].layers, fwd[0].blocks, fwd[0].smem)
                );
            }
            if log_n >= 12 {
                let seed = Kernels {
                    stage1: Stage1::Shuffle,
                    ..SHARED
                };
                let (inv, fwd) = (plan.launches(inverse, seed), plan.launches(forward, seed));
                let stage1 = fwd[0].kernel == Kernel::Stage1;
                assert_eq!(
                    fused_lde_launch(inv.last().unwrap(), &fwd[0]).is_none(),
                    stage1
                );
            }
            let nr = Form {
                ordering: Ordering::NR,
                ..forward
            };
            let (inv, fwd) = (plan.launches(inverse, SHARED), plan.launches(nr, SHARED));
            assert!(fused_lde_launch(inv.last().unwrap(), &fwd[0]).is_none());
            // An inverse NR and a coset RN fuse on their segments, every size and geometry.
            let inverse_nr = Form {
                ordering: Ordering::NR,
                ..inverse
            };
            let rn = Form {
                ordering: Ordering::RN,
                ..forward
            };
            for blocks in [Blocks::Wide, Blocks::Narrow] {
                let k = Kernels { blocks, ..SHARED };
                let (inv, fwd) = (plan.launches(inverse_nr, k), plan.launches(rn, k));
                let fused = fused_lde_launch(inv.last().unwrap(), &fwd[0])
                    .unwrap_or_else(|| panic!("NR/RN 2^{log_n} {blocks:?}"));
                let keep = flags::IN_BITREV | flags::LDE | flags::NARROW;
                assert_eq!(fused.flags & !keep, 0, "2^{log_n}: {fused:?}");
                assert_eq!(fused.flags & flags::IN_BITREV, flags::IN_BITREV);
                assert_eq!(
                    inv.len() + fwd.len() - 1,
                    if log_n <= 8 {
                        1
                    } else if log_n <= 20 {
                        3
                    } else {
                        5
                    }
                );
                // With the full table scaled (the engine's plain inverse where it holds that
                // table) the inverse NR's 1/N rides on its first launch: the halves still fuse,
                // and the fused launch scales by g^j alone (no POST_CONST on the inverse's last).
                let scaled = Form {
                    scaled_omega: full_omega,
                    ..inverse_nr
                };
                let inv = plan.launches(scaled, k);
                let last = inv.last().unwrap();
                let fused = fused_lde_launch(last, &fwd[0])
                    .unwrap_or_else(|| panic!("NR/RN 2^{log_n} {blocks:?}, scaled table"));
                assert_eq!(fused.flags & !keep, 0, "2^{log_n}: {fused:?}");
                let folded = inv.iter().any(|l| l.flags & flags::OMEGA_SCALED != 0);
                assert_eq!(
                    last.flags & flags::POST_CONST == 0,
                    folded || log_n > 20,
                    "2^{log_n}: {inv:?}"
                );
                assert_eq!(folded, full_omega && (9..=20).contains(&log_n), "2^{log_n}");
            }
        }
    }

    #[test]
    fn launch_tables() {
        let nn = Form::default();
        // 2^23: column, middle, column; the middle one carries an inverse's 1/N.
        let t = Plan::for_size(23).unwrap().launches(nn, SHARED);
        let kernels: Vec<_> = t.iter().map(|l| l.kernel).collect();
        assert_eq!(kernels, [Kernel::Column, Kernel::Middle, Kernel::Column]);
        assert_eq!(t.iter().map(|l| l.layers).sum::<u32>(), 23);
        assert_eq!(t[0].flags, flags::TWIDDLE_OUT);
        assert_eq!(t[2].flags, 0);
        assert_eq!((t[0].blocks, t[1].blocks), (1 << 13, 1 << 14));
        assert!(!t[0].dependent && t[1].dependent && t[2].dependent);
        assert!(t[0].by_columns && t[2].by_columns && !t[1].by_columns);
        let inv = Form {
            direction: Direction::Inverse,
            coset: true,
            ..nn
        };
        let t = Plan::for_size(23).unwrap().launches(inv, SHARED);
        assert_eq!(t[0].flags, flags::TWIDDLE_OUT);
        assert_eq!(t[2].flags, flags::POST_SCALE);
        // Orderings: column launches, no permutation; below 2^18 dependent with narrow blocks
        // (the default) and plain with wide ones.
        let rn_form = Form {
            ordering: Ordering::RN,
            coset: true,
            ..nn
        };
        let p12 = Plan::for_size(12).unwrap();
        let auto = Kernels::default().resolve(FieldId::Bn254Fr, &p12);
        // Clusters forced at 2^12: one launch with the ordering's and scaling's flags.
        let forced = Kernels {
            blocks: Blocks::Cluster,
            ..Kernels::default()
        };
        let cl = p12.launches(rn_form, forced.resolve(FieldId::Bn254Fr, &p12));
        assert_eq!(cl, [cluster_launch(12, rn_form)]);
        assert_eq!(
            (cl[0].kernel, cl[0].layers, cl[0].blocks, cl[0].threads),
            (Kernel::Cluster, 8, 16, 64)
        );
        assert_eq!(cl[0].flags, flags::PRE_SCALE | flags::IN_BITREV);
        assert_eq!(cl[0].smem, 2 * smem_bytes(256));
        let rn = p12.launches(rn_form, auto);
        assert!(rn.iter().all(|l| l.kernel == Kernel::Column));
        assert!(!rn[0].dependent && rn[1].dependent);
        let wide = Kernels {
            blocks: Blocks::Wide,
            ..Kernels::default()
        };
        let plain = p12.launches(rn_form, wide.resolve(FieldId::Bn254Fr, &p12));
        assert!(plain.iter().all(|l| !l.dependent));
        // 2^12 = 2^6 x 2^6: segments of 2^6 first, then columns down the whole.
        let shape: Vec<_> = rn.iter().map(|l| (l.layers, l.log_m)).collect();
        assert_eq!(shape, [(6, 6), (6, 12)]);
        let bits = flags::IN_BITREV | flags::NARROW;
        assert_eq!(rn[0].flags, flags::PRE_SCALE | bits);
        assert_eq!(rn[1].flags, flags::TWIDDLE_IN | bits);
        // Two launches to 2^20, then P, Q, P.
        for (log_n, sizes) in [
            (20, vec![10, 10]),
            (21, vec![8, 5, 8]),
            (23, vec![10, 3, 10]),
        ] {
            assert_eq!(Plan::for_size(log_n).unwrap().ordered_columns(), sizes);
        }
        // RN of sizes [a, b, c] is NR's launches in reverse: c-point segments first.
        let sizes = [4, 3, 5];
        let rn = ordered_launches(12, &sizes, None, rn_form, SHARED);
        let shape: Vec<_> = rn.iter().map(|l| (l.layers, l.log_m)).collect();
        assert_eq!(shape, [(5, 5), (3, 8), (4, 12)]);
        assert_eq!(rn[2].flags, flags::TWIDDLE_IN | flags::IN_BITREV);
        let nr_form = Form {
            ordering: Ordering::NR,
            direction: Direction::Inverse,
            coset: true,
            ..nn
        };
        let nr = Plan::for_size(23).unwrap().launches(nr_form, SHARED);
        let shape: Vec<_> = nr.iter().map(|l| (l.layers, l.log_m)).collect();
        assert_eq!(shape, [(10, 23), (3, 13), (10, 10)]);
        let bits = flags::OUT_BITREV;
        assert_eq!(nr[0].flags, flags::TWIDDLE_OUT | bits);
        assert_eq!(nr[1].flags, flags::TWIDDLE_OUT | flags::MID_TWIDDLES | bits);
        let scale = flags::POST_SCALE;
        assert_eq!(nr[2].flags, scale | bits);
        assert!(nr.iter().all(|l| !l.by_columns) && nr[1].dependent);
        // Every launch of 2^23 holds 2^10 elements per block: 2^13 blocks.
        assert!(
            nr.iter()
                .all(|l| l.blocks == 1 << 13 && l.smem == smem_bytes(1 << 10))
        );
        let nr = Plan::for_size(8).unwrap().launches(nr_form, SHARED);
        assert_eq!(nr.len(), 1);
        assert_eq!(nr[0].flags, scale | bits | flags::NARROW);
        assert_eq!(
            (nr[0].smem, nr[0].threads),
            (narrow_smem_bytes(1 << 8, 8), 128)
        );
        let two = Plan::for_size(12).unwrap().launches(nr_form, SHARED);
        assert_eq!(two.iter().map(|l| l.log_m).collect::<Vec<_>>(), [12, 6]);
        // Every size: the layers add up to log_n, one launch is all of a small size.
        for log_n in 1..=32 {
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                let form = Form { ordering, ..nn };
                let t = Plan::for_size(log_n).unwrap().launches(form, SHARED);
                assert_eq!(t.iter().map(|l| l.layers).sum::<u32>(), log_n);
                let single = log_n <= MAX_SINGLE_LOG;
                assert!(
                    t.iter()
                        .all(|l| (l.threads == THREADS || single) && l.blocks >= 1)
                );
                // Every column launch covers the transform once.
                for l in t.iter().filter(|l| l.kernel == Kernel::Column) {
                    assert_eq!((l.blocks as u64) << (l.layers + l.log_cols), 1 << log_n);
                }
            }
        }
    }

    #[test]
    fn narrow_blocks() {
        let narrow = Kernels {
            blocks: Blocks::Narrow,
            ..SHARED
        };
        for log_n in 1..=32 {
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                let form = Form {
                    ordering,
                    ..Form::default()
                };
                let plan = Plan::for_size(log_n).unwrap();
                let wide = plan.launches(form, SHARED);
                let t = plan.launches(form, narrow);
                // The same launches (layers, flags, kernels); only the geometry differs.
                let what = |l: &Launch| (l.kernel, l.layers, l.log_m, l.flags & !flags::NARROW);
                assert!(t.iter().map(what).eq(wide.iter().map(what)), "2^{log_n}");
                for l in &t {
                    assert!(
                        l.threads <= NARROW_THREADS && l.threads % 32 == 0,
                        "2^{log_n} {l:?}"
                    );
                    let (log_e, most) = match l.kernel {
                        Kernel::Column => {
                            assert_eq!((l.blocks as u64) << (l.layers + l.log_cols), 1 << log_n);
                            (l.layers + l.log_cols, NARROW_COLUMN_ELEMENTS_LOG)
                        }
                        Kernel::Middle => {
                            assert!(l.threads <= THREADS, "2^{log_n} {l:?}");
                            (1 + 2 * l.log_cols + l.layers, NARROW_ELEMENTS_LOG)
                        }
                        _ => continue,
                    };
                    // Narrow where the column or group fits: a butterfly per thread.
                    if log_e <= most {
                        assert!(2 * l.threads >= 1 << log_e, "2^{log_n} {l:?}");
                        assert_ne!(l.flags & flags::NARROW, 0);
                        assert_eq!(l.smem, narrow_smem_bytes(1 << log_e, l.layers));
                    } else {
                        assert_eq!(l.threads, THREADS, "2^{log_n} {l:?}");
                        assert_eq!(l.flags & flags::NARROW, 0);
                        assert_eq!(l.smem, smem_bytes(1 << log_e));
                    }
                }
            }
        }
        // 2^12 NR: two launches of 64 blocks of one warp (64 elements each).
        let nr = Form {
            ordering: Ordering::NR,
            ..Form::default()
        };
        let t = Plan::for_size(12).unwrap().launches(nr, narrow);
        let geometry: Vec<_> = t
            .iter()
            .map(|l| (l.blocks, l.threads, l.log_cols))
            .collect();
        assert_eq!(geometry, [(64, 32, 0), (64, 32, 0)]);
    }

    #[test]
    fn warp_shapes_fill_a_warp() {
        for log_q in 1..=STAGE2_WARP_MAX_LOG_Q {
            let w = WarpShape::for_q(log_q).unwrap();
            assert_eq!(w.log_el + w.log_lanes, log_q);
            assert_eq!(w.log_lanes + 2 * w.log_tile + 1, 5, "{w:?}");
            assert!((1..=3).contains(&w.log_el));
        }
        assert_eq!(WarpShape::for_q(STAGE2_WARP_MAX_LOG_Q + 1), None);
        // Every tile pair of the triangle once, in order.
        let mut id = 0;
        for tj in 0..300u64 {
            for ti in 0..=tj {
                assert_eq!(tile_pair(id), (ti, tj));
                id += 1;
            }
        }
        for tj in [1u64 << 10, (1 << 11) - 1, 1 << 11] {
            let id = tj * (tj + 1) / 2;
            assert_eq!(tile_pair(id), (0, tj));
            assert_eq!(tile_pair(id + tj), (tj, tj));
        }
        // The warp generation replaces the middle launch where Q allows, nothing else.
        let warp = Kernels {
            stage2: Stage2::Warp,
            ..SHARED
        };
        let t = Plan::for_size(23).unwrap().launches(Form::default(), warp);
        assert_eq!(t[1].kernel, Kernel::Stage2Warp);
        assert_eq!((t[1].smem, t[1].layers), (0, 3));
        // P = 2^10, T = 4 (Q = 8): 256 * 257 / 2 tile pairs, one per warp, four warps per block.
        assert_eq!(t[1].blocks, (256 * 257 / 2u32).div_ceil(4));
        let t = Plan::for_size(31).unwrap().launches(Form::default(), warp);
        assert_eq!(
            t[1].kernel,
            Kernel::Middle,
            "Q = 2^9 stays in shared memory"
        );
        assert_eq!(
            Kernels::parse(
                "stage1=shared,stage2=warp,blocks=wide,chain=dependent,product=integer,lde=natural,\
                 natural=selfsorting,trigger=layers"
            )
            .unwrap(),
            warp
        );
        // Auto: the warp kernel for BN254 at Q = 8 only.
        let auto = Kernels::default();
        let shared = SHARED;
        // Narrow blocks to 2^17, and dependent launches with them; the LDE bit-reversed to 2^20.
        let narrow = |k: Kernels| Kernels {
            blocks: Blocks::Narrow,
            lde: Lde::BitReversed,
            ..k
        };
        let warp_br = Kernels {
            lde: Lde::BitReversed,
            ..warp
        };
        // Natural order in two passes to 2^17.
        let two = |k: Kernels| Kernels {
            natural: Natural::TwoPass,
            ..k
        };
        let bn = FieldId::Bn254Fr;
        for (log_n, want) in [
            (17, two(narrow(warp))),
            (19, warp_br),
            (23, warp),
            (13, two(narrow(shared))),
            (14, two(narrow(shared))),
            (15, two(narrow(shared))),
            (20, shared),
            (21, shared),
            (22, shared),
            (24, shared),
        ] {
            assert_eq!(
                auto.resolve(bn, &Plan::for_size(log_n).unwrap()),
                want,
                "2^{log_n}"
            );
        }
        let p23 = Plan::for_size(23).unwrap();
        assert_eq!(auto.resolve(FieldId::Bls12_381Fr, &p23), shared);
        assert_eq!(warp.resolve(FieldId::Bls12_381Fr, &p23), warp);
        assert_eq!(
            auto.resolve(bn, &Plan::for_size(10).unwrap()),
            two(narrow(shared))
        );
        // Clusters only where forced; dependent launches with them (none: one launch).
        let forced = Kernels {
            blocks: Blocks::Cluster,
            ..auto
        };
        assert_eq!(
            forced.resolve(bn, &Plan::for_size(12).unwrap()),
            Kernels {
                blocks: Blocks::Cluster,
                ..two(narrow(shared))
            }
        );
        assert_eq!(Kernels::parse("").unwrap(), Kernels::default());
        assert_eq!(
            Kernels::parse("blocks=narrow").unwrap(),
            Kernels {
                blocks: Blocks::Narrow,
                ..Kernels::default()
            }
        );
        assert!(Kernels::parse("stage2=fast").is_err());
        // The seed's stage1 forced keeps its wide blocks under Auto.
        let seed = Kernels {
            stage1: Stage1::Shuffle,
            ..auto
        };
        assert_eq!(
            seed.resolve(bn, &Plan::for_size(14).unwrap()).blocks,
            Blocks::Wide
        );
        // A batch takes narrow blocks only while it holds at most 2^NARROW_MAX_LOG elements.
        let p14 = Plan::for_size(14).unwrap();
        let blocks = |batch| auto.resolve_batch(bn, &p14, batch).blocks;
        assert_eq!(blocks(1), Blocks::Narrow);
        assert_eq!(blocks(8), Blocks::Narrow);
        assert_eq!(blocks(9), Blocks::Wide);
        assert_eq!(blocks(1 << 13), Blocks::Wide);
        assert_eq!(auto.resolve_batch(bn, &p14, 8), auto.resolve(bn, &p14));
        // Two passes while the batch holds at most 2^TWO_PASS_AUTO_MAX_LOG elements (its scratch).
        let natural = |batch| auto.resolve_batch(bn, &p14, batch).natural;
        assert_eq!(natural(8), Natural::TwoPass);
        assert_eq!(natural(9), Natural::SelfSorting);
        // Forced narrow stays narrow whatever the batch.
        let narrow = Kernels {
            blocks: Blocks::Narrow,
            ..auto
        };
        assert_eq!(
            narrow.resolve_batch(bn, &p14, 1 << 13).blocks,
            Blocks::Narrow
        );
    }

    #[test]
    fn stage1_launches() {
        let shuffle = Kernels {
            stage1: Stage1::Shuffle,
            ..SHARED
        };
        // Both column launches of every three-stage size from 2^12 (blocks of 2^9 or 2^10 slots).
        for log_n in 12..=30 {
            let t = Plan::for_size(log_n)
                .unwrap()
                .launches(Form::default(), shuffle);
            let (first, last) = (t[0], t[2]);
            assert_eq!(
                (first.kernel, last.kernel),
                (Kernel::Stage1, Kernel::Stage1)
            );
            let slots = 1 << (first.layers + first.log_cols);
            assert_eq!(first.smem, 32 * stage1_word_stride(slots));
            assert!(first.by_columns && last.by_columns);
        }
        // Single-block sizes and P = 2^11 keep the column kernel.
        let t = Plan::for_size(8)
            .unwrap()
            .launches(Form::default(), shuffle);
        assert_eq!(t[0].kernel, Kernel::Column);
        let t = Plan::for_size(31)
            .unwrap()
            .launches(Form::default(), shuffle);
        assert_eq!(t[0].kernel, Kernel::Column);
        for slots in [1u32 << 9, 1 << 10] {
            let w = stage1_word_stride(slots);
            assert_eq!(w % 32, 5);
            assert!(w > slots + (slots >> 5) && w <= slots + (slots >> 5) + 32);
        }
        assert_eq!(
            Kernels::parse("stage2=warp, stage1=shuffle").unwrap(),
            Kernels {
                stage1: Stage1::Shuffle,
                stage2: Stage2::Warp,
                blocks: Blocks::Auto,
                chain: Chain::Auto,
                product: Product::Auto,
                lde: Lde::Auto,
                natural: Natural::Auto,
                trigger: Trigger::Auto,
            }
        );
        assert_eq!(
            Kernels::default()
                .resolve(FieldId::Bn254Fr, &Plan::for_size(23).unwrap())
                .stage1,
            Stage1::Shared
        );
    }

    #[test]
    fn plans_cover_every_size() {
        for log_n in 0..=32 {
            let plan = Plan::for_size(log_n).unwrap();
            assert_eq!(plan.log_n(), log_n);
            if let Plan::ThreeStage { log_p, log_q, .. } = plan {
                assert!((3..=MAX_LOG_P).contains(&log_p), "{plan:?}");
                assert!((2..=MAX_LOG_Q).contains(&log_q), "{plan:?}");
                assert_eq!(2 * log_p + log_q, log_n);
            }
        }
        assert!(Plan::for_size(33).is_err());
        // P = 2^10 up to 2^30, 2^11 beyond; small sizes split their columns over enough blocks.
        assert!(matches!(
            Plan::for_size(24).unwrap(),
            Plan::ThreeStage {
                log_p: 10,
                log_q: 4,
                ..
            }
        ));
        assert!(matches!(
            Plan::for_size(21).unwrap(),
            Plan::ThreeStage {
                log_p: 8,
                log_q: 5,
                ..
            }
        ));
        assert!(matches!(
            Plan::for_size(31).unwrap(),
            Plan::ThreeStage {
                log_p: 11,
                log_q: 9,
                ..
            }
        ));
        assert!(matches!(
            Plan::for_size(18).unwrap(),
            Plan::ThreeStage {
                log_p: 8,
                log_q: 2,
                log_cols: 1,
                ..
            }
        ));
        assert_eq!(
            Plan::for_size(23).unwrap(),
            Plan::ThreeStage {
                log_n: 23,
                log_p: 10,
                log_q: 3,
                log_cols: 0,
                log_tile: 3
            }
        );
    }

    /// Every inverse carries its 1/N exactly once: on the launch that reads the mid table
    /// (MID_SCALED, no POST_CONST anywhere) where the transform has one, else, where the engine
    /// lends the full table scaled, on the launch that reads it (OMEGA_SCALED), else as
    /// POST_CONST on its last launch; forward and coset transforms carry neither. The natural
    /// order's three stages (2^9 up) and the bit-reversed orderings' three launches (2^21 up)
    /// fold it into the mid table; NR, RN and the two-pass NN into the full table where it is
    /// held.
    #[test]
    fn inverse_scale_once() {
        let mut folded = std::collections::BTreeSet::new();
        let mut omega_folded = std::collections::BTreeSet::new();
        let order_name = |o: Ordering| format!("{o:?}");
        for log_n in 1..=28 {
            let plan = Plan::for_size(log_n).unwrap();
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                for (direction, coset) in [
                    (Direction::Forward, false),
                    (Direction::Forward, true),
                    (Direction::Inverse, false),
                    (Direction::Inverse, true),
                ] {
                    for stage2 in [Stage2::Shared, Stage2::Warp] {
                        for blocks in [Blocks::Wide, Blocks::Narrow, Blocks::Cluster] {
                            for (natural, scaled_omega) in [
                                (Natural::SelfSorting, false),
                                (Natural::SelfSorting, true),
                                (Natural::TwoPass, false),
                                (Natural::TwoPass, true),
                            ] {
                                let form = Form {
                                    direction,
                                    ordering,
                                    coset,
                                    full_omega: log_n <= 16,
                                    scaled_omega,
                                };
                                let kernels = Kernels {
                                    stage2,
                                    blocks,
                                    natural,
                                    ..Kernels::default()
                                };
                                let l = plan.launches(form, kernels);
                                let what = format!("2^{log_n} {form:?} {kernels:?}: {l:?}");
                                let with = |f: u32| l.iter().filter(|l| l.flags & f != 0).count();
                                let (scaled, post) = (
                                    with(flags::MID_SCALED) + with(flags::OMEGA_SCALED),
                                    with(flags::POST_CONST),
                                );
                                // reads_mid_table relies on it.
                                let twiddle = flags::TWIDDLE_IN | flags::TWIDDLE_OUT;
                                assert!(
                                    l.iter().all(|l| l.flags & flags::MID_TWIDDLES == 0
                                        || l.flags & twiddle != 0),
                                    "{what}"
                                );
                                if direction == Direction::Forward || coset {
                                    assert_eq!((scaled, post), (0, 0), "{what}");
                                    continue;
                                }
                                let full = l.iter().position(reads_full_omega);
                                match l.iter().position(reads_mid_table) {
                                    Some(i) => {
                                        assert_eq!((scaled, post), (1, 0), "{what}");
                                        assert!(l[i].flags & flags::MID_SCALED != 0, "{what}");
                                        folded.insert((log_n, ordering == Ordering::NN));
                                    }
                                    None if scaled_omega && full.is_some() => {
                                        assert_eq!((scaled, post), (1, 0), "{what}");
                                        let i = full.unwrap();
                                        assert!(l[i].flags & flags::OMEGA_SCALED != 0, "{what}");
                                        omega_folded.insert((log_n, order_name(ordering)));
                                    }
                                    None => {
                                        assert_eq!((scaled, post), (0, 1), "{what}");
                                        assert!(
                                            l[l.len() - 1].flags & flags::POST_CONST != 0,
                                            "{what}"
                                        );
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for log_n in 9..=28 {
            assert!(
                folded.contains(&(log_n, true)),
                "NN 2^{log_n} keeps POST_CONST"
            );
        }
        for log_n in 21..=28 {
            assert!(
                folded.contains(&(log_n, false)),
                "NR/RN 2^{log_n} keep POST_CONST"
            );
        }
        // With the full table (here to 2^16): the two-launch NR and RN and the two-pass NN.
        for log_n in MAX_SINGLE_LOG + 1..=16 {
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                assert!(
                    omega_folded.contains(&(log_n, order_name(ordering))),
                    "{ordering:?} 2^{log_n} keeps POST_CONST with the full table scaled"
                );
            }
        }
    }
}
