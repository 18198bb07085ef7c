use crate::{Error, Result};
use ark_ff::FftField;

/// Forward (evaluate) or inverse (interpolate, scaled by 1/N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// `out[k] = sum_j in[j] * (g * w^k)^j`, with `g` the coset offset (1 without a coset).
    #[default]
    Forward,
    /// The inverse of [`Direction::Forward`] with the same offset, including the 1/N scaling.
    Inverse,
}

/// Order of input and output: N = natural, R = bit-reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ordering {
    /// Natural order in, natural order out (what ark-poly does).
    #[default]
    NN,
    /// Natural order in, bit-reversed out.
    NR,
    /// Bit-reversed in, natural order out.
    RN,
}

impl Ordering {
    /// Whether the input is bit-reversed.
    pub fn input_reversed(self) -> bool {
        matches!(self, Ordering::RN)
    }
    /// Whether the output is bit-reversed.
    pub fn output_reversed(self) -> bool {
        matches!(self, Ordering::NR)
    }
}

/// How the transforms of a batch sit in one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BatchLayout {
    /// One transform after another: transform `b` is `data[b*n .. (b+1)*n]`.
    #[default]
    Rows,
    /// Columns of a row-major `n x batch` matrix: element `i` of transform `b` is `data[i*batch + b]`.
    Columns,
}

/// What an NTT call computes. The CPU reference and the GPU engine take the same configuration.
///
/// ```
/// use zkntt_core::{NttConfig, Ordering};
/// let cfg = NttConfig::<ark_bn254::Fr>::inverse()
///     .with_coset(ark_bn254::Fr::from(7u64))
///     .with_ordering(Ordering::RN)
///     .with_batch(4);
/// assert_eq!(cfg.batch, 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NttConfig<F> {
    pub direction: Direction,
    /// Coset offset `g`; `None` is the subgroup itself (g = 1).
    pub coset: Option<F>,
    pub ordering: Ordering,
    /// Number of equal-size transforms in the buffer (at least 1).
    pub batch: usize,
    pub layout: BatchLayout,
}

impl<F> Default for NttConfig<F> {
    fn default() -> Self {
        Self {
            direction: Direction::Forward,
            coset: None,
            ordering: Ordering::NN,
            batch: 1,
            layout: BatchLayout::Rows,
        }
    }
}

impl<F: FftField> NttConfig<F> {
    /// A single forward NN transform.
    pub fn forward() -> Self {
        Self::default()
    }
    /// A single inverse NN transform, scaled by 1/N.
    pub fn inverse() -> Self {
        Self {
            direction: Direction::Inverse,
            ..Self::default()
        }
    }
    pub fn with_direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }
    /// Evaluate on (or interpolate from) the coset `offset * <w>`.
    pub fn with_coset(mut self, offset: F) -> Self {
        self.coset = Some(offset);
        self
    }
    pub fn with_ordering(mut self, ordering: Ordering) -> Self {
        self.ordering = ordering;
        self
    }
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }
    pub fn with_layout(mut self, layout: BatchLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Checks the configuration against a buffer of `len` elements and returns log2 of the size of
    /// one transform.
    pub fn log_size(&self, len: usize) -> Result<u32> {
        if self.batch == 0 {
            return Err(Error::ZeroBatch);
        }
        if self.coset.is_some_and(|g| g.is_zero()) {
            return Err(Error::ZeroCosetOffset);
        }
        let bad = Error::BadLength {
            len,
            batch: self.batch,
        };
        if len % self.batch != 0 {
            return Err(bad);
        }
        let n = len / self.batch;
        if !n.is_power_of_two() {
            return Err(bad);
        }
        let log_n = n.trailing_zeros();
        if log_n > F::TWO_ADICITY {
            return Err(Error::DomainTooLarge {
                log_n,
                max: F::TWO_ADICITY,
            });
        }
        Ok(log_n)
    }
}
