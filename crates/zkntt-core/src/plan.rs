//! How a transform of 2^log_n splits into GPU launches: the plan as data, shared by the GPU engine
//! and its CPU twin ([`crate::self_sort`]).
//!
//! Up to [`MAX_SINGLE_LOG`] the whole transform runs in one block's shared memory (one launch).
//! Beyond, N = P x Q x P (P = 2^log_p, Q = 2^log_q) in three in-place launches with natural order
//! in and out and no bit-reversal pass (Hegland's self-sorting in-place scheme):
//!
//! | launch | what | data it reads and writes |
//! |---|---|---|
//! | A `column` | P-point NTTs down the columns of the P x (Q*P) matrix, times w_N^(c*k1) | column c, in place |
//! | B `middle` | Q-point NTTs on groups (a, *, b), times w_N^(P*b*k), written to (b, *, a) | tile pairs (a,b)/(b,a), in place |
//! | C `column` | P-point NTTs down the columns again (with 1/N and coset scaling for inverses) | column c, in place |

use crate::Error;

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
            // An even P: its columns are radix-4 passes only (2^20 as 8+4+8 ran 0.98 of sppark
            // where 9+2+9 ran 0.94, 2^21 as 8+5+8 0.95 against 0.92; below 2^18 odd P is faster).
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

    /// Kernel launches per transform.
    pub fn launches(&self) -> usize {
        match self {
            Plan::Single { .. } => 1,
            Plan::ThreeStage { .. } => 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
