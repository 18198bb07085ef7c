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
//! | 3 | [`Kernel::Column`] | P-point NTTs down the columns again (with 1/N and coset scaling for inverses) | column c, in place |
//!
//! [`Plan::launches`] turns a plan and the form of a call (ordering, scaling) into that table with
//! every launch's geometry and flags: the one place that knows the launch order. The engine runs
//! it in one loop; the host pipeline runs the first and last column launches a range of columns
//! at a time ([`Launch::by_columns`]).

use crate::{Direction, Error, Ordering};

/// Largest log2 size done in one block (2^11 elements of 32 bytes: 64 KiB of shared memory).
pub const MAX_SINGLE_LOG: u32 = 11;
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

/// Threads per block of every NTT launch: 128 threads x 128 registers lets four column blocks of
/// 2^10 elements share an SM, each waiting at its own barriers (benches/NOTES.md has the sweep).
pub const THREADS: u32 = 128;
/// Smallest log2 size whose launches after the first are dependent (programmatic dependent
/// launch, sm_90+). Below it the dependent launch measured slower (benches/NOTES.md).
pub const DEPENDENT_LAUNCH_MIN_LOG: u32 = 18;
/// Most blocks of a bit-reversal launch (a grid-stride loop covers the rest).
const BIT_REVERSE_MAX_BLOCKS: u64 = 4096;

/// Bits of a launch's `flags`: what the kernel does besides its NTT layers. The same values as
/// `cuda/ntt/ntt_common.cuh`.
pub mod flags {
    /// Input element j *= pre(j) (coset forward: g^j).
    pub const PRE_SCALE: u32 = 1;
    /// Column output (k1, c) *= w_N^(c*k1) (the first column launch).
    pub const TWIDDLE_OUT: u32 = 2;
    /// Output element k *= post(k) (coset inverse: g^-k).
    pub const POST_SCALE: u32 = 4;
    /// Output element *= one constant (inverse: 1/N).
    pub const POST_CONST: u32 = 8;
    /// The twiddle table holds all N powers of the root (one read per twiddle, no product).
    pub const OMEGA_FULL: u32 = 16;
}

/// The kernels of the NTT engine (`cuda/ntt/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `cuda/ntt/column.cu`: P-point NTTs down columns in shared memory (also whole transforms up
    /// to 2^[`MAX_SINGLE_LOG`]).
    Column,
    /// `cuda/ntt/middle.cu`: Q-point NTTs on tile pairs of groups, with the transposing swap.
    Middle,
    /// `cuda/ntt/bit_reverse.cu`: the bit-reversal permutation, in place.
    BitReverse,
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
}

/// One kernel launch of a transform. Grids are per transform: `grid.1` is the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Launch {
    pub kernel: Kernel,
    /// NTT layers this launch computes (0 for the permutation).
    pub layers: u32,
    /// Blocks per transform.
    pub blocks: u32,
    /// Threads per block.
    pub threads: u32,
    /// Dynamic shared memory in bytes (32-byte elements, padded column-major layout).
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

/// Shared memory for `slots` elements in the padded column-major layout of `ntt_common.cuh`.
pub const fn smem_bytes(slots: u32) -> u32 {
    32 * (slots + (slots >> 5) + 1)
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
        let mut log_cols = COLUMN_ELEMENTS_LOG.saturating_sub(log_p).min(log_n - log_p);
        while log_cols > 0
            && log_p + log_cols > MIN_COLUMN_ELEMENTS_LOG
            && log_n - log_p - log_cols < MIN_COLUMN_BLOCKS_LOG
        {
            log_cols -= 1;
        }
        let log_tile = (MIDDLE_ELEMENTS_LOG.saturating_sub(log_q) / 2).min(log_p);
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

    /// The launches of a transform of this size in `form`, in order. Bit-reversed orderings add a
    /// permutation before (RN) or after (NR) the self-sorting launches.
    pub fn launches(&self, form: Form) -> Vec<Launch> {
        let log_n = self.log_n();
        let pre = if form.coset && form.direction == Direction::Forward {
            flags::PRE_SCALE
        } else {
            0
        };
        let post = match form.direction {
            Direction::Forward => 0,
            Direction::Inverse if form.coset => flags::POST_SCALE | flags::POST_CONST,
            Direction::Inverse => flags::POST_CONST,
        };
        let launch = |kernel, layers, blocks, smem, flags, log_cols| Launch {
            kernel,
            layers,
            blocks,
            threads: THREADS,
            smem,
            flags,
            log_cols,
            dependent: false,
            by_columns: false,
        };
        let bit_reverse = launch(
            Kernel::BitReverse,
            0,
            (1u64 << log_n)
                .div_ceil(THREADS as u64)
                .min(BIT_REVERSE_MAX_BLOCKS) as u32,
            0,
            0,
            0,
        );
        let mut out = Vec::with_capacity(5);
        if form.ordering == Ordering::RN {
            out.push(bit_reverse);
        }
        match *self {
            Plan::Single { log_n } => {
                out.push(launch(
                    Kernel::Column,
                    log_n,
                    1,
                    smem_bytes(1 << log_n),
                    pre | post,
                    0,
                ));
            }
            Plan::ThreeStage {
                log_n,
                log_p,
                log_q,
                log_cols,
                log_tile,
            } => {
                let omega = if form.full_omega {
                    flags::OMEGA_FULL
                } else {
                    0
                };
                let column_blocks = 1u32 << (log_n - log_p - log_cols);
                let column_smem = smem_bytes(1 << (log_p + log_cols));
                let tiles = 1u32 << (log_p - log_tile);
                let first = Launch {
                    by_columns: true,
                    ..launch(
                        Kernel::Column,
                        log_p,
                        column_blocks,
                        column_smem,
                        pre | flags::TWIDDLE_OUT | omega,
                        log_cols,
                    )
                };
                let middle = launch(
                    Kernel::Middle,
                    log_q,
                    tiles * tiles,
                    smem_bytes(2 << (2 * log_tile + log_q)),
                    0,
                    log_tile,
                );
                let last = Launch {
                    flags: post,
                    ..first
                };
                out.extend([first, middle, last]);
            }
        }
        if form.ordering == Ordering::NR {
            out.push(bit_reverse);
        }
        let dependent = log_n >= DEPENDENT_LAUNCH_MIN_LOG;
        for l in out.iter_mut().skip(1) {
            l.dependent = dependent;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_tables() {
        let nn = Form::default();
        // 2^23: column, middle, column; the last one scales by 1/N for inverses.
        let t = Plan::for_size(23).unwrap().launches(nn);
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
        let t = Plan::for_size(23).unwrap().launches(inv);
        assert_eq!(t[0].flags, flags::TWIDDLE_OUT);
        assert_eq!(t[2].flags, flags::POST_SCALE | flags::POST_CONST);
        // Orderings add the permutation before (RN) or after (NR); nothing below 2^18 is dependent.
        let rn = Plan::for_size(12).unwrap().launches(Form {
            ordering: Ordering::RN,
            coset: true,
            ..nn
        });
        assert_eq!(rn.len(), 4);
        assert_eq!(rn[0].kernel, Kernel::BitReverse);
        assert_eq!(rn[1].flags, flags::PRE_SCALE | flags::TWIDDLE_OUT);
        assert!(rn.iter().all(|l| !l.dependent));
        let nr = Plan::for_size(10).unwrap().launches(Form {
            ordering: Ordering::NR,
            ..nn
        });
        assert_eq!(
            nr.iter().map(|l| l.kernel).collect::<Vec<_>>(),
            [Kernel::Column, Kernel::BitReverse]
        );
        assert_eq!(nr[0].smem, smem_bytes(1 << 10));
        // Every size: the layers add up to log_n, one launch is all of a small size.
        for log_n in 1..=32 {
            let t = Plan::for_size(log_n).unwrap().launches(nn);
            assert_eq!(t.iter().map(|l| l.layers).sum::<u32>(), log_n);
            assert!(t.iter().all(|l| l.threads == THREADS && l.blocks >= 1));
        }
    }

    #[test]
    fn plans_cover_every_size() {
        for log_n in 0..=32 {
            let plan = Plan::for_size(log_n).unwrap();
            assert_eq!(plan.log_n(), log_n);
            if let Plan::ThreeStage { log_p, log_q, .. } = plan {
                assert!((5..=MAX_LOG_P).contains(&log_p), "{plan:?}");
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
}
