//! CPU model of the distributed NTT: one transform of N split across `k` GPUs ("ranks") by the
//! four-step decomposition, with exactly ONE all-to-all exchange. Ranks are threads here; the
//! exchange goes through channels, one message per (source, destination) pair, each message a
//! contiguous chunk of the source's send buffer, exactly what an NCCL all-to-all would move.
//!
//! # The decomposition
//!
//! N = N1 x N2; the input x, natural order, is read as N2 rows x N1 columns, row-major:
//! `x[n1 + N1*n2]`. With w the primitive N-th root ark-poly uses (its inverse for the inverse),
//!
//! 1. for each column n1, the N2-point NTT over n2 (root w^N1), times the twiddle w^(n1*k2):
//!    `Y[n1][k2]`;
//! 2. for each k2, the N1-point NTT over n1 (root w^N2): `X[k2 + N2*k1]`,
//!
//! because w^(n*k) = w^(n1*k2) * (w^N2)^(n1*k1) * (w^N1)^(n2*k2) for n = n1 + N1*n2,
//! k = k2 + N2*k1. Natural order in and out at the host.
//!
//! # What each rank holds (k ranks, c = N1/k columns and r = N2/k k2-values per rank)
//!
//! - **Scatter** (host): rank g gets columns n1 = g*c + j, j < c, as an N2 x c row-major block:
//!   `input_g[n2*c + j] = x[g*c + j + N1*n2]`, N2 runs of c contiguous host elements (one 2-D
//!   copy; on the GPU machine the host pipeline's copies do this for free).
//! - **Step 1** (local): per column j, the coset scaling `offset^(n1 + N1*n2)` is fused into the
//!   input read (the rank owning column n1 scales it), then the N2-point NTT, then the twiddle
//!   `w^(n1*k2)`, written straight into the send buffer: `send_g[h*c*r + j*r + (k2 - h*r)]` with
//!   h = k2 / r. So the send buffer is k chunks of c*r elements, chunk h for rank h.
//! - **All-to-all**: rank g sends chunk h to rank h and keeps chunk g; rank h stores the chunk
//!   from g at `recv_h[g*c*r ..]`, which makes `recv_h[n1*r + k2l] = Y[n1][h*r + k2l]`: every n1,
//!   its own r values of k2. Each rank sends (k-1) chunks of N/k^2 elements over the links.
//! - **Step 2** (local, in place in the receive buffer): per k2l < r, the N1-point NTT over n1
//!   (stride r), then for the inverse the 1/N and `offset^-(k2 + N2*k1)` scalings fused into the
//!   output write: `out_h[k1*r + k2l] = X[h*r + k2l + N2*k1]`.
//! - **Gather** (host): rank h's row k1 is r contiguous elements of X at `N2*k1 + h*r`, N1 runs
//!   of r elements (again one 2-D copy).
//!
//! The GPU version does the same: the same split ([`Split::balanced`]), the same per-rank layouts,
//! step 1 writing its output directly in the all-to-all's send layout (no separate pack kernel),
//! one `ncclAllToAll`-style exchange of equal chunks, step 2 reading its columns at stride r, and
//! the coset and 1/N factors fused into the first and last steps.
//!
//! # Not modelled
//!
//! Bit-reversed orderings ([`Ordering::NR`], [`Ordering::RN`]) return
//! [`Error::OrderingNotModelled`]: bit reversal would scatter single elements across the host
//! gather (or scatter) rather than runs, which the GPU pipeline does not plan to do. Batches are
//! supported as a sequence of independent distributed transforms (one exchange each).

use crate::reference::{for_each_transform, radix2_nn, root_of_unity};
use crate::{Direction, Error, NttConfig, Ordering, Result};
use ark_ff::FftField;
use std::sync::mpsc;

/// How one transform of 2^(log_n1 + log_n2) is cut: N2 rows x N1 columns over `ranks` ranks.
/// Fields are private so every `Split` has passed [`Split::new`]'s checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Split {
    log_n1: u32,
    log_n2: u32,
    log_ranks: u32,
}

impl Split {
    /// The split the GPU will use: N1 and N2 as equal as possible (N1 the larger by one bit when
    /// log_n is odd), both divisible by `ranks`.
    ///
    /// Errors with [`Error::BadRanks`] when `ranks` is not a power of two or N < ranks^2.
    pub fn balanced(log_n: u32, ranks: usize) -> Result<Self> {
        Self::new(log_n.div_ceil(2), log_n / 2, ranks)
    }

    /// An explicit split N1 = 2^log_n1, N2 = 2^log_n2 over `ranks` ranks.
    ///
    /// Errors with [`Error::BadRanks`] when `ranks` is not a power of two or does not divide
    /// both N1 and N2.
    pub fn new(log_n1: u32, log_n2: u32, ranks: usize) -> Result<Self> {
        let bad = Error::BadRanks {
            ranks,
            log_n1,
            log_n2,
        };
        if !ranks.is_power_of_two() {
            return Err(bad);
        }
        let log_ranks = ranks.trailing_zeros();
        if log_ranks > log_n1 || log_ranks > log_n2 {
            return Err(bad);
        }
        Ok(Self {
            log_n1,
            log_n2,
            log_ranks,
        })
    }

    /// log2 of N1, the length of the step-2 transforms (and the number of columns).
    pub fn log_n1(&self) -> u32 {
        self.log_n1
    }
    /// log2 of N2, the length of the step-1 transforms (and the number of rows).
    pub fn log_n2(&self) -> u32 {
        self.log_n2
    }
    /// log2 of the number of ranks; at most `log_n1` and `log_n2`.
    pub fn log_ranks(&self) -> u32 {
        self.log_ranks
    }
    pub fn log_n(&self) -> u32 {
        self.log_n1 + self.log_n2
    }
    pub fn n1(&self) -> usize {
        1 << self.log_n1
    }
    pub fn n2(&self) -> usize {
        1 << self.log_n2
    }
    pub fn ranks(&self) -> usize {
        1 << self.log_ranks
    }
    /// c = N1 / ranks: the columns (values of n1) each rank transforms in step 1.
    pub fn columns_per_rank(&self) -> usize {
        self.n1() >> self.log_ranks
    }
    /// r = N2 / ranks: the values of k2 each rank transforms in step 2.
    pub fn k2_per_rank(&self) -> usize {
        self.n2() >> self.log_ranks
    }
    /// c * r = N / ranks^2: elements in one all-to-all chunk (one source, one destination).
    pub fn chunk_len(&self) -> usize {
        self.columns_per_rank() * self.k2_per_rank()
    }
}

/// What the distributed run moved between ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    pub split: Split,
    /// Transforms run (the batch), one all-to-all each.
    pub transforms: usize,
    /// Bytes of one element as exchanged: `size_of::<F>()`, 32 for BN254 and BLS12-381 (the
    /// GPU's eight 32-bit limbs and ark's four 64-bit Montgomery limbs are the same 32 bytes).
    pub element_bytes: usize,
    /// `bytes_sent[g][h]`: bytes rank g sent rank h in the all-to-alls, summed over the batch.
    /// The diagonal is zero: a rank's own chunk stays in its memory and crosses no link.
    pub bytes_sent: Vec<Vec<u64>>,
}

impl Stats {
    /// Bytes rank g sent to all other ranks together.
    pub fn bytes_sent_by(&self, rank: usize) -> u64 {
        self.bytes_sent.get(rank).map_or(0, |row| row.iter().sum())
    }
    /// Bytes that crossed links in total.
    pub fn total_bytes(&self) -> u64 {
        self.bytes_sent.iter().flatten().sum()
    }
}

/// The batch `cfg` describes, each transform distributed over `ranks` ranks (threads) with the
/// [`Split::balanced`] split. Bit-exact with [`crate::reference::ntt`] and ark-poly.
///
/// Errors (leaving `data` untouched): those of [`NttConfig::log_size`],
/// [`Error::OrderingNotModelled`] for NR and RN, [`Error::BadRanks`] when `ranks` is not a power
/// of two or N < ranks^2.
pub fn ntt_distributed<F: FftField>(
    data: &mut [F],
    cfg: &NttConfig<F>,
    ranks: usize,
) -> Result<Stats> {
    let log_n = cfg.log_size(data.len())?;
    check_ordering(cfg)?;
    let split = Split::balanced(log_n, ranks)?;
    run_batch(data, cfg, split)
}

/// [`ntt_distributed`] with an explicit split; [`Error::BadSplit`] when it does not add up to the
/// transform's size.
pub fn ntt_distributed_with_split<F: FftField>(
    data: &mut [F],
    cfg: &NttConfig<F>,
    split: Split,
) -> Result<Stats> {
    let log_n = cfg.log_size(data.len())?;
    check_ordering(cfg)?;
    if split.log_n() != log_n {
        return Err(Error::BadSplit {
            log_n,
            log_p: split.log_n1,
        });
    }
    run_batch(data, cfg, split)
}

fn check_ordering<F>(cfg: &NttConfig<F>) -> Result<()> {
    match cfg.ordering {
        Ordering::NN => Ok(()),
        ordering => Err(Error::OrderingNotModelled { ordering }),
    }
}

/// Runs every transform of the batch once everything is checked, so nothing below can fail.
fn run_batch<F: FftField>(data: &mut [F], cfg: &NttConfig<F>, split: Split) -> Result<Stats> {
    let job = Job::new(cfg, split);
    let ranks = split.ranks();
    let element_bytes = std::mem::size_of::<F>();
    let mut stats = Stats {
        split,
        transforms: 0,
        element_bytes,
        bytes_sent: vec![vec![0; ranks]; ranks],
    };
    let chunk_bytes = (split.chunk_len() * element_bytes) as u64;
    for_each_transform(data, split.log_n(), cfg, |x| {
        run_one(x, &job);
        stats.transforms += 1;
        for (g, row) in stats.bytes_sent.iter_mut().enumerate() {
            for (h, bytes) in row.iter_mut().enumerate() {
                if g != h {
                    *bytes += chunk_bytes;
                }
            }
        }
    });
    Ok(stats)
}

/// What every rank needs to know, the same on all of them (the GPU would pass it at launch).
#[derive(Debug, Clone, Copy)]
struct Job<F> {
    split: Split,
    /// w^n1 twiddle base: the N-th root for the forward, its inverse for the inverse.
    omega: F,
    /// Forward coset offset, scaled into step 1's input.
    input_offset: Option<F>,
    /// Inverse: (1/N, offset^-1 or 1), scaled into step 2's output.
    output_scale: Option<(F, F)>,
}

impl<F: FftField> Job<F> {
    fn new(cfg: &NttConfig<F>, split: Split) -> Self {
        let root = root_of_unity::<F>(split.log_n());
        match cfg.direction {
            Direction::Forward => Self {
                split,
                omega: root,
                input_offset: cfg.coset,
                output_scale: None,
            },
            Direction::Inverse => {
                let n_inv = F::from(1u64 << split.log_n())
                    .inverse()
                    .expect("N is below the modulus");
                let offset_inv = cfg
                    .coset
                    .map_or(F::one(), |g| g.inverse().expect("offset checked non-zero"));
                Self {
                    split,
                    omega: root.inverse().expect("a root of unity is non-zero"),
                    input_offset: None,
                    output_scale: Some((n_inv, offset_inv)),
                }
            }
        }
    }
}

/// A message of the all-to-all: the source rank and its chunk for the destination.
type Chunk<F> = (usize, Vec<F>);

/// One transform: host scatter, the ranks as scoped threads, host gather.
fn run_one<F: FftField>(x: &mut [F], job: &Job<F>) {
    let split = job.split;
    let (n1, n2, ranks) = (split.n1(), split.n2(), split.ranks());
    let (c, r) = (split.columns_per_rank(), split.k2_per_rank());

    // Scatter: rank g's N2 x c block, N2 runs of c contiguous host elements.
    let inputs: Vec<Vec<F>> = (0..ranks)
        .map(|g| {
            (0..n2)
                .flat_map(|row| &x[g * c + n1 * row..][..c])
                .copied()
                .collect()
        })
        .collect();

    let (outboxes, inboxes): (Vec<_>, Vec<_>) = (0..ranks).map(|_| mpsc::channel()).unzip();
    let outputs: Vec<Vec<F>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .into_iter()
            .zip(inboxes)
            .enumerate()
            .map(|(rank, (input, inbox))| {
                let outboxes = outboxes.clone();
                scope.spawn(move || run_rank(rank, input, job, &outboxes, inbox))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });

    // Gather: rank h's row k1 is X[N2*k1 + h*r ..][..r].
    for (h, out) in outputs.iter().enumerate() {
        for (k1, run) in out.chunks_exact(r).enumerate() {
            x[n2 * k1 + h * r..][..r].copy_from_slice(run);
        }
    }
}

/// Rank `rank`'s part: step 1 on its columns, the all-to-all, step 2 on its k2 values. Returns
/// its output block, `out[k1*r + k2l] = X[rank*r + k2l + N2*k1]`.
fn run_rank<F: FftField>(
    rank: usize,
    input: Vec<F>,
    job: &Job<F>,
    outboxes: &[mpsc::Sender<Chunk<F>>],
    inbox: mpsc::Receiver<Chunk<F>>,
) -> Vec<F> {
    let split = job.split;
    let (n1, n2, ranks) = (split.n1(), split.n2(), split.ranks());
    let (c, r, chunk_len) = (
        split.columns_per_rank(),
        split.k2_per_rank(),
        split.chunk_len(),
    );

    // Step 1: N2-point NTTs down this rank's c columns (stride c in its block).
    let omega_n2 = job.omega.pow([n1 as u64]);
    let offset_row_step = job.input_offset.map(|g| g.pow([n1 as u64]));
    let mut column = vec![F::zero(); n2];
    let mut send = vec![F::zero(); n2 * c];
    for j in 0..c {
        let col = rank * c + j;
        for (row, v) in column.iter_mut().enumerate() {
            *v = input[row * c + j];
        }
        if let (Some(g), Some(step)) = (job.input_offset, offset_row_step) {
            // x[n1 + N1*n2] *= g^(n1 + N1*n2), stepped by g^N1 down the column.
            let mut s = g.pow([col as u64]);
            for v in column.iter_mut() {
                *v *= s;
                s *= step;
            }
        }
        radix2_nn(&mut column, omega_n2);
        // The twiddle w^(n1*k2), written in the send layout: chunk k2 / r, row j, slot k2 % r.
        let base = job.omega.pow([col as u64]);
        let mut t = F::one();
        for (k2, v) in column.iter().enumerate() {
            send[(k2 / r) * chunk_len + j * r + k2 % r] = *v * t;
            t *= base;
        }
    }

    // The all-to-all: chunk h to rank h (its own chunk too, as NCCL does, without a link).
    for (h, outbox) in outboxes.iter().enumerate() {
        outbox
            .send((rank, send[h * chunk_len..][..chunk_len].to_vec()))
            .expect("every rank holds its inbox until it has all its chunks");
    }
    let mut recv = vec![F::zero(); n1 * r];
    for _ in 0..ranks {
        let (src, chunk) = inbox
            .recv()
            .expect("every rank sends one chunk to every rank");
        recv[src * chunk_len..][..chunk_len].copy_from_slice(&chunk);
    }

    // Step 2: N1-point NTTs over n1 (stride r), in place; recv[n1*r + k2l] = Y[n1][rank*r + k2l].
    let omega_n1 = job.omega.pow([n2 as u64]);
    let mut row = vec![F::zero(); n1];
    for k2l in 0..r {
        for (n1i, v) in row.iter_mut().enumerate() {
            *v = recv[n1i * r + k2l];
        }
        radix2_nn(&mut row, omega_n1);
        match job.output_scale {
            Some((n_inv, offset_inv)) => {
                // X[k2 + N2*k1] *= (1/N) * g^-(k2 + N2*k1), stepped by g^-N2 over k1.
                let k2 = rank * r + k2l;
                let mut s = n_inv * offset_inv.pow([k2 as u64]);
                let step = offset_inv.pow([n2 as u64]);
                for (k1, v) in row.iter().enumerate() {
                    recv[k1 * r + k2l] = *v * s;
                    s *= step;
                }
            }
            None => {
                for (k1, v) in row.iter().enumerate() {
                    recv[k1 * r + k2l] = *v;
                }
            }
        }
    }
    recv
}
