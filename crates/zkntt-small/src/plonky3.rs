//! Plonky3's DFT on the GPU (cargo feature `plonky3`): [`GpuDft`] implements
//! `p3_dft::TwoAdicSubgroupDft<F>` for Plonky3 0.8's `BabyBear` and `KoalaBear`, bit-exact with
//! `p3_dft::Radix2DitParallel`, which it falls back to wherever the GPU cannot serve a call.
//!
//! The matrix goes up once, row-major as Plonky3 holds it; the device transposes it into one
//! contiguous transform per column, runs [`SmallNtt`] over the batch, applies coset powers and
//! zero-padding there (`cuda/small/coset.cu`), transposes back and the result comes down once. The
//! forward transforms run natural in, bit-reversed out (NR), so the evaluations come back with
//! their rows in bit-reversed order, which is how `Radix2DitParallel` stores them too: both return
//! them behind Plonky3's `BitReversedMatrixView`. The copies in and out go through pinned memory in
//! 16 MiB chunks: the CPU's copy of one input chunk into pinned memory runs while the chunk before
//! it crosses PCIe. The result is written into the input's own vector, grown in place: its chunks
//! come down through a ring of 8 pinned slots and each is copied out as it arrives, under the DMAs
//! of the next ones. The input's staged copy in pinned memory stays whole until the result is
//! complete, and a failure copies it back over the words already overwritten, so the input is
//! intact for the CPU fallback. [`GpuDft::last_profile`] says where a call's time went.
//!
//! Plonky3's `MontyField31` holds x R mod p (R = 2^32) in a `#[repr(transparent)]` `u32`, always
//! below p. The kernels' additions are mod p and every product is x * w mod p with w a twiddle,
//! 1/N or a coset power given as a plain residue (each form encodes w its own way, and its
//! product returns x * w mod p for any x < p): so x R goes in, (NTT x) R comes out, and the words
//! travel as they are, with no conversion either way. `tests/plonky3.rs` checks this against
//! `Radix2DitParallel`, on the CPU twin of these steps ([`twin_transform`]) and on the GPU.

use crate::error::{DriverContext, oom};
use crate::ntt::Kernel;
use crate::transpose::transpose_words;
use crate::{
    Direction, Error, ModMulForm, PinnedBuffer, Result, SmallField, SmallNtt, coset, reference,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, sys};
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::{PrimeField32, TwoAdicField};
use p3_matrix::Matrix;
use p3_matrix::bitrev::{BitReversedMatrixView, BitReversibleMatrix};
use p3_matrix::dense::RowMajorMatrix;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use zkntt_gpu::{Gpu, Ordering::NR, host};

pub use p3_baby_bear::BabyBear;
pub use p3_koala_bear::KoalaBear;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BabyBear {}
    impl Sealed for super::KoalaBear {}
}

/// A Plonky3 field the small-word kernels serve: `BabyBear` or `KoalaBear`.
pub trait GpuField: TwoAdicField + PrimeField32 + Ord + Default + sealed::Sealed {
    /// The same field on the kernels' side.
    const FIELD: SmallField;
}

impl GpuField for BabyBear {
    const FIELD: SmallField = SmallField::BabyBear;
}

impl GpuField for KoalaBear {
    const FIELD: SmallField = SmallField::KoalaBear;
}

// `MontyField31` is `#[repr(transparent)]` over its `u32` (p3-monty-31 0.8.0, src/monty_31.rs: "Important
// for reasoning about memory layout"; Plonky3's own `zero_vec` casts `Vec<u32>` to it). These fail
// the build if that ever stops holding for size or alignment.
const _: () = {
    assert!(size_of::<BabyBear>() == size_of::<u32>());
    assert!(align_of::<BabyBear>() == align_of::<u32>());
    assert!(size_of::<KoalaBear>() == size_of::<u32>());
    assert!(align_of::<KoalaBear>() == align_of::<u32>());
};

/// `f` on `values` as its raw words (Montgomery form, below p), in the same allocation: `f` may
/// write its result there, growing the vector, every word it leaves below p (a canonical
/// Montgomery value, as the kernels' outputs are).
fn into_words<F: GpuField, R>(values: &mut Vec<F>, f: impl FnOnce(&mut Vec<u32>) -> R) -> R {
    const { assert!(size_of::<F>() == 4 && align_of::<F>() == 4) };
    let mut taken = std::mem::ManuallyDrop::new(std::mem::take(values));
    // SAFETY: F is MontyField31 (sealed), `#[repr(transparent)]` over a u32: same size and
    // alignment (asserted above), so the allocation's layout is that of a Vec<u32> of the same
    // length and capacity; every u32 is a valid u32.
    let mut words = unsafe {
        Vec::from_raw_parts(
            taken.as_mut_ptr().cast::<u32>(),
            taken.len(),
            taken.capacity(),
        )
    };
    let out = f(&mut words);
    debug_assert!(words.iter().all(|&w| w < F::FIELD.modulus()));
    let mut words = std::mem::ManuallyDrop::new(words);
    // SAFETY: back the same way: same layout; the words are canonical Montgomery values, the only
    // invariant MontyField31 has.
    *values = unsafe {
        Vec::from_raw_parts(
            words.as_mut_ptr().cast::<F>(),
            words.len(),
            words.capacity(),
        )
    };
    out
}

/// One transform of every column, on raw words. Shifts are plain residues. The ops that end in a
/// forward transform leave the result's rows in bit-reversed order ([`Op::bit_reversed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Dft,
    /// Scaled by 1/N.
    Idft,
    /// Row j times s^j, then the DFT.
    CosetDft {
        shift: u32,
    },
    /// The inverse DFT, then row j times s_inv^j.
    CosetIdft {
        shift_inv: u32,
    },
    /// Inverse DFT, zero rows up to 2^(log_h + added_bits), row j times s^j, DFT.
    CosetLde {
        added_bits: u32,
        shift: u32,
    },
}

impl Op {
    /// Whether the result's rows come out in bit-reversed order: the ops that end in a forward
    /// transform (Plonky3's evaluations), which runs natural in, bit-reversed out (NR).
    pub fn bit_reversed(self) -> bool {
        matches!(self, Op::Dft | Op::CosetDft { .. } | Op::CosetLde { .. })
    }

    fn added_bits(self) -> u32 {
        match self {
            Op::CosetLde { added_bits, .. } => added_bits,
            _ => 0,
        }
    }
}

/// Which way the last call of a [`GpuDft`] (or of a clone) went; 0 before any.
const LAST_GPU: u8 = 1;
const LAST_CPU: u8 = 2;

#[derive(Debug, Default)]
struct Stats {
    gpu: AtomicU64,
    cpu: AtomicU64,
    last: AtomicU8,
    fallback: Mutex<Option<String>>,
    profile: Mutex<Option<Profile>>,
}

/// Where the time of the last call that ran on the GPU went ([`GpuDft::last_profile`]): host
/// wall-clock times from the start of its copies (the engine and the pinned staging buffer, kept
/// from call to call, ready), each up to the end of a phase. The uploads run under the copies into
/// pinned memory, and the downloads under the copies out of the result (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// The input copied into pinned memory, its last chunk's upload queued.
    pub staged_in: Duration,
    /// The result's first chunk in pinned memory: the rest of the upload, the kernels and that
    /// chunk's download.
    pub first_out: Duration,
    /// The result's last chunk in pinned memory (the copies out of the earlier ones run meanwhile).
    pub all_out: Duration,
    /// The result's last word in the returned vector.
    pub total: Duration,
    /// Bytes up (the input) and down (the result).
    pub bytes_in: usize,
    pub bytes_out: usize,
}

impl Profile {
    fn new(
        staged_in: Duration,
        first_out: Duration,
        all_out: Duration,
        total: Duration,
        words_in: usize,
        words_out: usize,
    ) -> Self {
        Self {
            staged_in,
            first_out,
            all_out,
            total,
            bytes_in: words_in * 4,
            bytes_out: words_out * 4,
        }
    }
}

/// Plonky3's `TwoAdicSubgroupDft` on the GPU, for `BabyBear` and `KoalaBear`:
///
/// ```no_run
/// use p3_dft::TwoAdicSubgroupDft;
/// use p3_field::{Field, PrimeCharacteristicRing};
/// use p3_matrix::Matrix;
/// use p3_matrix::bitrev::BitReversibleMatrix;
/// use p3_matrix::dense::RowMajorMatrix;
/// use zkntt_small::plonky3::{BabyBear, GpuDft};
///
/// let dft = GpuDft::<BabyBear>::default(); // in place of Radix2DitParallel::<BabyBear>
/// let trace = RowMajorMatrix::new(vec![BabyBear::ONE; 256 << 20], 256);
/// let lde = dft.coset_lde_batch(trace, 1, BabyBear::GENERATOR);
/// assert_eq!(lde.height(), 1 << 21);
/// assert_eq!(dft.last_ran_on_gpu(), Some(true));
/// // As Plonky3's PCS takes it: the rows as stored, in bit-reversed order, with no copy.
/// let stored: RowMajorMatrix<BabyBear> = lde.bit_reverse_rows();
/// ```
///
/// Results are bit-identical to `Radix2DitParallel`'s, and of its type: the evaluations
/// (`dft_batch`, `coset_dft_batch`, `coset_lde_batch`) are rows stored in bit-reversed order behind
/// a view in natural order (`BitReversedMatrixView`), as the GPU's forward transforms leave them,
/// so `.bit_reverse_rows()` hands over the stored matrix for free and `.to_row_major_matrix()`
/// permutes it on the CPU, as for `Radix2DitParallel`; the inverse transforms return plain
/// `RowMajorMatrix`es in natural order. It runs on `Radix2DitParallel` where no GPU is usable (no
/// device, no kernels, out of memory, any driver error), above the field's largest GPU transform
/// (rows with the blowup: BabyBear 2^26 where the GPU has thread-block clusters, else 2^24;
/// KoalaBear 2^24), or below [`GpuDft::with_cpu_below`]'s size; never with a partial result. The
/// GPU is device 0, opened on first use and shared by every `GpuDft` of the process; calls on it
/// run one at a time (from rayon tasks too: a call's copies run on threads of its own, so a worker
/// waiting its turn holds up nothing the call in progress needs). The result is written into the
/// input matrix's own vector, grown in place; `last_profile` says where a GPU call's time went.
#[derive(Debug, Clone, Default)]
pub struct GpuDft<F> {
    cpu: Radix2DitParallel<F>,
    /// log2 of the element count (rows after the blowup x columns) below which the CPU runs the
    /// call; `None` for the default.
    cpu_below_log: Option<u32>,
    stats: Arc<Stats>,
}

/// Calls with fewer elements than this (2^14) run on the CPU by default: below it the copies and
/// launches cost more than `Radix2DitParallel` takes.
pub const DEFAULT_CPU_BELOW_LOG: u32 = 14;

impl<F: GpuField> GpuDft<F> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls of fewer than 2^log_elements elements (output rows x columns) run on the CPU; 0
    /// sends everything the GPU can take to the GPU (the tests do).
    pub fn with_cpu_below(mut self, log_elements: u32) -> Self {
        self.cpu_below_log = Some(log_elements);
        self
    }

    /// Whether the last call (of this value or a clone) ran on the GPU; `None` before any call.
    pub fn last_ran_on_gpu(&self) -> Option<bool> {
        match self.stats.last.load(Ordering::Relaxed) {
            LAST_GPU => Some(true),
            LAST_CPU => Some(false),
            _ => None,
        }
    }

    /// Calls that ran on the GPU and on the CPU, so far (this value and its clones).
    pub fn calls(&self) -> (u64, u64) {
        (
            self.stats.gpu.load(Ordering::Relaxed),
            self.stats.cpu.load(Ordering::Relaxed),
        )
    }

    /// Where the time of the last call that ran on the GPU went (this value and its clones).
    pub fn last_profile(&self) -> Option<Profile> {
        *lock(&self.stats.profile)
    }

    /// Why the last call that wanted the GPU ran on the CPU, if one did.
    pub fn last_fallback(&self) -> Option<String> {
        lock(&self.stats.fallback).clone()
    }

    fn ran(&self, gpu: bool) {
        let (counter, last) = if gpu {
            (&self.stats.gpu, LAST_GPU)
        } else {
            (&self.stats.cpu, LAST_CPU)
        };
        counter.fetch_add(1, Ordering::Relaxed);
        self.stats.last.store(last, Ordering::Relaxed);
    }

    /// The GPU's result (rows in bit-reversed order where `op` ends in a forward transform,
    /// [`Op::bit_reversed`]), or `Err(mat)` (untouched) for the CPU to compute.
    fn on_gpu(
        &self,
        mat: RowMajorMatrix<F>,
        op: Op,
    ) -> Result<RowMajorMatrix<F>, RowMajorMatrix<F>> {
        let (w, h) = (mat.width(), mat.height());
        if w == 0 || h == 0 || !h.is_power_of_two() || mat.values.len() != w * h {
            return Err(mat);
        }
        let log_h = h.trailing_zeros();
        // An overflow is beyond every GPU transform: the CPU's (Plonky3 refuses it there).
        let Some(log_out) = log_h.checked_add(op.added_bits()) else {
            return Err(mat);
        };
        let elements_log = log_out.saturating_add(usize::BITS - 1 - w.leading_zeros());
        let too_small = elements_log < self.cpu_below_log.unwrap_or(DEFAULT_CPU_BELOW_LOG);
        if too_small || log_out > F::FIELD.max_log_n() || u32::try_from(w).is_err() {
            return Err(mat);
        }
        let mut values = mat.values;
        let done = match backend() {
            Ok(b) => into_words(&mut values, |words| {
                b.transform(F::FIELD, words, w, log_h, op)
            })
            .map_err(|e| e.to_string()),
            Err(why) => Err(why.clone()),
        };
        match done {
            Ok(profile) => {
                *lock(&self.stats.profile) = Some(profile);
                Ok(RowMajorMatrix::new(values, w))
            }
            Err(why) => {
                *lock(&self.stats.fallback) = Some(why);
                Err(RowMajorMatrix::new(values, w))
            }
        }
    }

    /// `op` on the GPU (its result through `gpu`), else `cpu` on the untouched input.
    fn run<T>(
        &self,
        mat: RowMajorMatrix<F>,
        op: Op,
        gpu: impl FnOnce(RowMajorMatrix<F>) -> T,
        cpu: impl FnOnce(&Radix2DitParallel<F>, RowMajorMatrix<F>) -> T,
    ) -> T {
        match self.on_gpu(mat, op) {
            Ok(out) => {
                self.ran(true);
                gpu(out)
            }
            Err(mat) => {
                self.ran(false);
                cpu(&self.cpu, mat)
            }
        }
    }
}

/// The GPU's rows, stored in bit-reversed order, as Plonky3's view of them in natural order.
fn evaluations<F: GpuField>(stored: RowMajorMatrix<F>) -> BitReversedMatrixView<RowMajorMatrix<F>> {
    stored.bit_reverse_rows()
}

/// The evaluations are `Radix2DitParallel`'s own type: rows stored in bit-reversed order behind
/// a view in natural order, so that a PCS's `.bit_reverse_rows()` takes the stored matrix as it
/// is, and the GPU's forward transforms end in that order (NR) with no permutation anywhere.
impl<F: GpuField> TwoAdicSubgroupDft<F> for GpuDft<F> {
    type Evaluations = BitReversedMatrixView<RowMajorMatrix<F>>;

    fn dft_batch(&self, mat: RowMajorMatrix<F>) -> Self::Evaluations {
        self.run(mat, Op::Dft, evaluations, |cpu, m| cpu.dft_batch(m))
    }

    fn idft_batch(&self, mat: RowMajorMatrix<F>) -> RowMajorMatrix<F> {
        self.run(mat, Op::Idft, |m| m, |cpu, m| cpu.idft_batch(m))
    }

    fn coset_dft_batch(&self, mat: RowMajorMatrix<F>, shift: F) -> Self::Evaluations {
        let op = Op::CosetDft {
            shift: shift.as_canonical_u32(),
        };
        self.run(mat, op, evaluations, |cpu, m| cpu.coset_dft_batch(m, shift))
    }

    fn coset_idft_batch(&self, mat: RowMajorMatrix<F>, shift: F) -> RowMajorMatrix<F> {
        // A zero shift has no inverse: Radix2DitParallel's answer (a panic) is the answer.
        let Some(inv) = shift.try_inverse() else {
            self.ran(false);
            return self.cpu.coset_idft_batch(mat, shift);
        };
        let op = Op::CosetIdft {
            shift_inv: inv.as_canonical_u32(),
        };
        self.run(mat, op, |m| m, |cpu, m| cpu.coset_idft_batch(m, shift))
    }

    fn coset_lde_batch(
        &self,
        mat: RowMajorMatrix<F>,
        added_bits: usize,
        shift: F,
    ) -> Self::Evaluations {
        let Ok(bits) = u32::try_from(added_bits) else {
            self.ran(false);
            return self.cpu.coset_lde_batch(mat, added_bits, shift);
        };
        let op = Op::CosetLde {
            added_bits: bits,
            shift: shift.as_canonical_u32(),
        };
        self.run(mat, op, evaluations, |cpu, m| {
            cpu.coset_lde_batch(m, added_bits, shift)
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Waits for the GPU's stream on drop while armed.
struct Idle<'a> {
    gpu: &'a Gpu,
    armed: bool,
}

impl Drop for Idle<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.gpu.synchronize();
        }
    }
}

/// A call's CPU copies, on threads of the call's own (scoped to it), not on the caller's rayon
/// pool: the call holds the backend's locks while it copies, and a rayon worker waiting in a
/// join takes up other jobs of its pool, such as another call that waits for those locks (a
/// `par_iter` of commitments), so the holder would wait on its waiter. Pieces of 256 KiB go to
/// whichever thread is free; `wait` returns once every piece handed out has been copied.
struct Crew {
    state: Mutex<CrewState>,
    work: std::sync::Condvar,
    idle: std::sync::Condvar,
}

#[derive(Default)]
struct CrewState {
    pieces: std::collections::VecDeque<Piece>,
    /// The numbers of the pieces handed out and not yet copied (queued or under way).
    unfinished: std::collections::BTreeSet<u64>,
    /// The next piece's number: pieces are numbered in the order they are handed out.
    next: u64,
    stop: bool,
}

/// `len` words from `src` to `dst`; `seq`: its number.
struct Piece {
    dst: *mut u32,
    src: *const u32,
    len: usize,
    seq: u64,
}

/// What [`Crew::copy`] returns: the number after its last piece's, for [`Crew::wait_for`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Ticket(u64);

// SAFETY: a piece is two disjoint word ranges that the call which made it keeps alive and leaves
// alone until `Crew::wait`, or `Crew::wait_for` with its ticket or a later one, has returned (or
// the crew's scope has ended); a thread may copy them.
unsafe impl Send for Piece {}

/// Words per piece of a crew's copy: the engine's copy piece (256 KiB).
const PIECE_WORDS: usize = zkntt_gpu::host::COPY_PIECE_BYTES / 4;

impl Crew {
    /// Runs `f` with a crew of `helpers` threads besides the caller's (which copies while it
    /// waits), ended when `f` returns or unwinds; pieces not yet copied then are dropped.
    fn scope<R>(helpers: usize, f: impl FnOnce(&Crew) -> R) -> R {
        let crew = Crew {
            state: Mutex::new(CrewState::default()),
            work: std::sync::Condvar::new(),
            idle: std::sync::Condvar::new(),
        };
        std::thread::scope(|sc| {
            /// Stops the crew however `f` ends, so that the scope can join its threads.
            struct Stop<'a>(&'a Crew);
            impl Drop for Stop<'_> {
                fn drop(&mut self) {
                    let mut guard = lock(&self.0.state);
                    let st = &mut *guard;
                    st.stop = true;
                    for piece in st.pieces.drain(..) {
                        st.unfinished.remove(&piece.seq);
                    }
                    self.0.work.notify_all();
                }
            }
            let _stop = Stop(&crew);
            for i in 0..helpers {
                // A thread that cannot start is one helper fewer: `wait` copies too.
                let _ = std::thread::Builder::new()
                    .name(format!("zkntt-p3-copy-{i}"))
                    .spawn_scoped(sc, || crew.serve());
            }
            f(&crew)
        })
    }

    /// Helper threads for copies of `words` words in all: one per core but the caller's (which
    /// waits on the GPU, then copies), at most 15, and none that would find no piece to copy.
    fn helpers(words: usize) -> usize {
        (zkntt_gpu::host::default_copy_threads() - 1)
            .min(words.div_ceil(PIECE_WORDS).saturating_sub(1))
    }

    fn serve(&self) {
        loop {
            let piece = {
                let mut st = lock(&self.state);
                loop {
                    if let Some(p) = st.pieces.pop_front() {
                        break p;
                    }
                    if st.stop {
                        return;
                    }
                    st = self.work.wait(st).unwrap_or_else(|p| p.into_inner());
                }
            };
            self.run(piece);
        }
    }

    /// Copies one piece and counts it done (on an unwind too, so that no wait hangs on it).
    fn run(&self, piece: Piece) {
        struct Done<'a>(&'a Crew, u64);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                let mut st = lock(&self.0.state);
                st.unfinished.remove(&self.1);
                // Waiters wait for all pieces or for those before a ticket: each completion may
                // end one.
                self.0.idle.notify_all();
            }
        }
        let _done = Done(self, piece.seq);
        // SAFETY: the ranges are valid, disjoint and untouched by anyone else until the waits
        // (the maker's promise, `Piece`).
        unsafe { host::copy_streaming_raw(piece.dst, piece.src, piece.len) };
    }

    /// Hands out the copy of `len` words from `src` to `dst`, in pieces.
    ///
    /// # Safety
    /// Both ranges must stay valid, disjoint from each other and from every other range handed
    /// out, and unused by the caller until [`Crew::wait`], or [`Crew::wait_for`] with the returned
    /// ticket or a later one, has returned; `dst` may be memory not
    /// yet initialised (every word is written).
    unsafe fn copy(&self, dst: *mut u32, src: *const u32, len: usize) -> Ticket {
        let mut st = lock(&self.state);
        for at in (0..len).step_by(PIECE_WORDS) {
            let seq = st.next;
            st.next += 1;
            st.pieces.push_back(Piece {
                // SAFETY: `at < len`: inside both ranges.
                dst: unsafe { dst.add(at) },
                src: unsafe { src.add(at) },
                len: PIECE_WORDS.min(len - at),
                seq,
            });
            st.unfinished.insert(seq);
        }
        self.work.notify_all();
        Ticket(st.next)
    }

    /// Until every piece handed out has been copied; the calling thread copies pieces too.
    fn wait(&self) {
        self.wait_until(|st| st.unfinished.is_empty());
    }

    /// Until every piece handed out before `ticket` was returned has been copied (later ones may
    /// still be under way); the calling thread copies pieces too, the oldest first.
    fn wait_for(&self, ticket: Ticket) {
        self.wait_until(|st| st.unfinished.first().is_none_or(|&seq| seq >= ticket.0));
    }

    fn wait_until(&self, done: impl Fn(&CrewState) -> bool) {
        let mut st = lock(&self.state);
        loop {
            if done(&st) {
                return;
            }
            if let Some(piece) = st.pieces.pop_front() {
                drop(st);
                self.run(piece);
                st = lock(&self.state);
            } else {
                st = self.idle.wait(st).unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}

/// The process-wide GPU side: device 0 and one [`SmallNtt`] per field, built on first use.
#[derive(Debug)]
struct Backend {
    gpu: Gpu,
    /// BabyBear's and KoalaBear's engines; the lock also runs one call at a time per field.
    ntts: [Mutex<Option<SmallNtt>>; 2],
    /// Pinned host memory for the copies in and out ([`staging_words`]: the input and up to 128
    /// MiB for the result's ring), grown to the largest call and kept ([`release_staging`] frees
    /// it): a pageable copy runs at a fraction of the PCIe bandwidth.
    staging: Mutex<Option<PinnedBuffer>>,
}

/// Frees the pinned host memory the GPU path keeps for its copies (the largest input so far and
/// up to 128 MiB more); the next GPU call allocates it again.
pub fn release_staging() {
    if let Ok(b) = backend() {
        *lock(&b.staging) = None;
    }
}

/// Words per chunk of the staged copies (16 MiB): the CPU copy of a chunk into (or out of) pinned
/// memory runs while the chunk before it crosses PCIe.
const CHUNK_WORDS: usize = 1 << 22;

/// The pinned words a call of `n` words in and `out_len` out stages through: the input, kept
/// whole until the result is complete, then the result's ring ([`RING`]).
fn staging_words(n: usize, out_len: usize) -> usize {
    n + RING.words(out_len)
}

/// The form the backend's NTTs use (any form gives the same words; this is the fastest measured
/// for BabyBear in `benches/NOTES.md`).
const FORM: ModMulForm = ModMulForm::ShoupLazy;

/// The backend, or why there is none (the same answer for the life of the process).
fn backend() -> std::result::Result<&'static Backend, &'static String> {
    static BACKEND: OnceLock<std::result::Result<Backend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let gpu = Gpu::new(0).map_err(|e| e.to_string())?;
            if !zkntt_gpu::kernels_built() {
                return Err(format!(
                    "kernels not built ({})",
                    zkntt_gpu::KERNELS_BUILD_NOTE
                ));
            }
            Ok(Backend {
                gpu,
                ntts: Default::default(),
                staging: Mutex::new(None),
            })
        })
        .as_ref()
}

/// A device buffer of `len` words, contents unspecified.
fn alloc(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<u32>> {
    // SAFETY: every buffer below is written (copy, transpose, NTT, expand) before it is read.
    unsafe { stream.alloc::<u32>(len) }.map_err(|e| oom(e, len))
}

impl Backend {
    /// `op` on every column of the row-major `h x w` matrix `words` (h = 2^log_h): the result,
    /// row-major, of 2^(log_h + added_bits) rows.
    fn transform(
        &self,
        field: SmallField,
        words: &mut Vec<u32>,
        w: usize,
        log_h: u32,
        op: Op,
    ) -> Result<Profile> {
        let slot = match field {
            SmallField::BabyBear => 0,
            SmallField::KoalaBear => 1,
            SmallField::Q28 => {
                return Err(Error::SizeUnsupported {
                    field: field.name(),
                    log_n: log_h,
                    max: 0,
                });
            }
        };
        let mut guard = lock(&self.ntts[slot]);
        if guard.is_none() {
            *guard = Some(SmallNtt::new(&self.gpu, field, FORM)?);
        }
        let ntt = guard.as_ref().ok_or(Error::LengthMismatch {
            expected: 1,
            got: 0,
        })?;
        // This GPU's largest transform (2^24 without clusters), before anything is staged.
        ntt.check_size(log_h + op.added_bits(), Kernel::Wsx)?;
        // Held until this call's copies are over: no other call reuses the memory under a DMA.
        let mut staging = lock(&self.staging);
        let out_len = words.len() << op.added_bits();
        let pinned_len = staging_words(words.len(), out_len);
        if staging.as_ref().is_none_or(|b| b.len() < pinned_len) {
            *staging = None;
            // Without pinned memory the copies go pageable (slower, same result).
            *staging = PinnedBuffer::new(&self.gpu, pinned_len).ok();
        }
        // Nothing of this call may still run when it returns or unwinds, with the staging lock
        // released: on success the result's last download has completed, and every launch
        // before it on the same stream; otherwise (an error or a panic) the guard waits.
        let mut idle = Idle {
            gpu: &self.gpu,
            armed: true,
        };
        // The copies' crew: none where the copies go pageable (the driver's).
        let helpers = if staging.is_some() {
            Crew::helpers(out_len)
        } else {
            0
        };
        let out = Crew::scope(helpers, |crew| {
            self.enqueue(crew, ntt, words, w, log_h, op, staging.as_mut())
        });
        idle.armed = out.is_err();
        drop(idle);
        if out.is_err() {
            // The growth reserved for the result goes back before the CPU computes the call.
            words.shrink_to(words.len());
        }
        out
    }

    /// The call on the GPU. Where the result outgrows the input (an LDE), the vector is grown in
    /// place now (glibc's allocator moves a large block's mapping, not its data) and the growth,
    /// fresh memory whose first writes fault (the kernel zeroes each page), is faulted in on
    /// threads of its own once the input is staged (`start_prefault`: started with the staging,
    /// they slowed it by half), under the kernels and the copies out of the input's own words, so
    /// that the copies out of the growth write into mapped pages at the downloads' pace; the ring
    /// waits for them (`prefault`) before its first copy into the growth.
    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &self,
        crew: &Crew,
        ntt: &SmallNtt,
        words: &mut Vec<u32>,
        w: usize,
        log_h: u32,
        op: Op,
        staging: Option<&mut PinnedBuffer>,
    ) -> Result<Profile> {
        let n = words.len();
        let len = n << op.added_bits();
        // The growth's first byte and length, where there is one to fault in.
        let growth = if staging.is_some() && len > n {
            words
                .try_reserve_exact(len - n)
                .map_err(|_| Error::HostMemory { words: len })?;
            let growth = &mut words.spare_capacity_mut()[..len - n];
            advise_huge_pages(growth);
            Some((growth.as_mut_ptr() as usize, std::mem::size_of_val(growth)))
        } else {
            None
        };
        let threads = if growth.is_some() {
            PREFAULT_THREADS
        } else {
            0
        };
        let prefault = Prefault::new(threads);
        std::thread::scope(|sc| {
            let pf = &prefault;
            let start_prefault = || {
                let Some((at, bytes)) = growth else { return };
                for t in 0..threads {
                    // Parts of whole pages' length, one a thread.
                    let part = (bytes / threads).next_multiple_of(4096);
                    let (lo, hi) = ((t * part).min(bytes), ((t + 1) * part).min(bytes));
                    let spawned = std::thread::Builder::new()
                        .name(format!("zkntt-p3-fault-{t}"))
                        // SAFETY: bytes lo..hi of the growth, the vector's reserved capacity,
                        // which stays in place (below, only its capacity is checked) and which
                        // nothing else writes until `Prefault::wait` has returned
                        // (`Ring::copy_out` waits).
                        .spawn_scoped(sc, move || unsafe { pf.touch(at + lo, at + hi) });
                    if spawned.is_err() {
                        pf.done();
                    }
                }
            };
            // However the call ends (a panic too), the faulting threads stop before the scope
            // joins them.
            struct Stop<'a>(&'a Prefault);
            impl Drop for Stop<'_> {
                fn drop(&mut self) {
                    self.0.stop();
                }
            }
            let _stop = Stop(pf);
            let gpu = &self.gpu;
            let stream = gpu.stream().clone();
            let field = ntt.field();
            let (h, cols) = (1u32 << log_h, w as u32);
            let started = Instant::now();
            // The pinned buffer by address, taken before any DMA: the chunks' copies run while the
            // host works on other chunks, so no reference to the whole buffer is made after this.
            let pinned = staging.map(|buf| buf.as_mut_slice().as_mut_ptr());
            let mut a = match pinned {
                Some(base) => {
                    let mut a = alloc(&stream, n)?;
                    let (dev, guard) = a.device_ptr_mut(&stream);
                    for (k, from) in words.chunks(CHUNK_WORDS).enumerate() {
                        // SAFETY: the chunk lies inside the buffer (it holds at least n words) and
                        // no DMA touches it yet: the crew writes it, then only its upload reads it.
                        let to = unsafe { base.add(k * CHUNK_WORDS) };
                        // SAFETY: `from` is the caller's, `to` the pinned buffer's: disjoint, both
                        // alive and left alone until the wait.
                        unsafe { crew.copy(to, from.as_ptr(), from.len()) };
                        crew.wait();
                        // SAFETY: `a` holds n words; the chunk is pinned memory, which stays
                        // unwritten until this upload has completed (the result's downloads into
                        // the buffer follow it on the same stream, and the call waits for them or
                        // for the stream).
                        unsafe {
                            sys::cuMemcpyHtoDAsync_v2(
                                dev + (k * CHUNK_WORDS * 4) as u64,
                                to.cast(),
                                from.len() * 4,
                                stream.cu_stream(),
                            )
                        }
                        .result()
                        .during("input upload")?;
                    }
                    drop(guard);
                    a
                }
                None => stream.clone_htod(&words[..]).map_err(|e| oom(e, n))?,
            };
            let staged_in = started.elapsed();
            start_prefault();
            let mut b = alloc(&stream, n)?;
            // Row-major h x w -> w columns of h, each one transform.
            transpose(gpu, &stream, &a, &mut b, h, cols)?;
            let result = match op {
                Op::Dft | Op::CosetDft { .. } => {
                    if let Op::CosetDft { shift } = op {
                        let (p, _g) = b.device_ptr_mut(&stream);
                        coset::expand(gpu, &stream, field, p, p, w as u64, shift, log_h, log_h)?;
                    }
                    ntt.run_into_ordered(
                        &mut b,
                        &mut a,
                        log_h,
                        Direction::Forward,
                        Kernel::Wsx,
                        NR,
                    )?;
                    transpose(gpu, &stream, &a, &mut b, cols, h)?;
                    b
                }
                Op::Idft | Op::CosetIdft { .. } => {
                    ntt.run_into(&mut b, &mut a, log_h, Direction::Inverse, Kernel::Wsx)?;
                    if let Op::CosetIdft { shift_inv } = op {
                        let (p, _g) = a.device_ptr_mut(&stream);
                        coset::expand(
                            gpu, &stream, field, p, p, w as u64, shift_inv, log_h, log_h,
                        )?;
                    }
                    transpose(gpu, &stream, &a, &mut b, cols, h)?;
                    b
                }
                Op::CosetLde { added_bits, shift } => {
                    let log_out = log_h + added_bits;
                    ntt.run_into(&mut b, &mut a, log_h, Direction::Inverse, Kernel::Wsx)?;
                    drop(b);
                    let big = n << added_bits;
                    let mut c = alloc(&stream, big)?;
                    {
                        let (i, _gi) = a.device_ptr(&stream);
                        let (o, _go) = c.device_ptr_mut(&stream);
                        coset::expand(gpu, &stream, field, i, o, w as u64, shift, log_h, log_out)?;
                    }
                    drop(a);
                    let mut d = alloc(&stream, big)?;
                    ntt.run_into_ordered(
                        &mut c,
                        &mut d,
                        log_out,
                        Direction::Forward,
                        Kernel::Wsx,
                        NR,
                    )?;
                    transpose(gpu, &stream, &d, &mut c, cols, 1 << log_out)?;
                    c
                }
            };
            let Some(base) = pinned else {
                let out = stream.clone_dtoh(&result).during("result download")?;
                stream.synchronize().during("result download")?;
                *words = out;
                let total = started.elapsed();
                return Ok(Profile::new(staged_in, total, total, total, n, words.len()));
            };
            // The result goes into the input's own vector, grown in place (above). The chunks
            // come down through a ring of pinned slots after the input's staged copy, each copied
            // out into the vector as it arrives, under the DMAs of the next ones; the staged copy
            // stays whole until the end, so that an error puts the input back for the CPU fallback.
            debug_assert_eq!(result.len(), len);
            // Reserved above (an LDE's growth) or not needed: no reallocation here, which would
            // move the vector under the faulting threads.
            if words.capacity() < len {
                return Err(Error::HostMemory { words: len });
            }
            let (dev, guard) = result.device_ptr(&stream);
            let mut downloads = StreamDownloads {
                stream: &stream,
                dev,
                arrived: std::collections::VecDeque::new(),
            };
            // SAFETY: the pinned buffer holds n + RING.words(len) words (`staging_words`), the
            // staged input in its first n; the vector holds n words and has room for len; `result`
            // holds len words on the device and outlives the downloads (the call waits for them, or
            // the stream).
            let (first, all_in) = unsafe {
                RING.copy_out(
                    crew,
                    &mut downloads,
                    base,
                    words.as_mut_ptr(),
                    n,
                    len,
                    started,
                    &mut || prefault.wait(),
                )
            }?;
            drop(guard);
            // SAFETY: the ring copied every word from 0 to len into the vector.
            unsafe { words.set_len(len) };
            let total = started.elapsed();
            Ok(Profile::new(staged_in, first, all_in, total, n, len))
        })
    }
}

/// Threads that fault an LDE's growth in ([`Backend::enqueue`]).
const PREFAULT_THREADS: usize = 8;

/// Fresh memory faulted in by threads of its own, one write a page: `wait` until they are done.
struct Prefault {
    left: Mutex<usize>,
    finished: std::sync::Condvar,
    stop: std::sync::atomic::AtomicBool,
}

impl Prefault {
    fn new(threads: usize) -> Self {
        Self {
            left: Mutex::new(threads),
            finished: std::sync::Condvar::new(),
            stop: false.into(),
        }
    }

    /// One zero written into `lo` and the start of every 4 KiB page after it below `hi` (byte
    /// addresses, `lo` 4-byte aligned): one write in each page the range reaches into. Then this
    /// thread counts done; it stops early once `stop` is called.
    ///
    /// # Safety
    /// `lo..hi` must be writable memory that nothing else uses until [`Prefault::wait`] returns.
    unsafe fn touch(&self, lo: usize, hi: usize) {
        const PAGE: usize = 4096;
        // Counted done however the loop ends, so that `wait` cannot hang on this thread.
        struct Done<'a>(&'a Prefault);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.done();
            }
        }
        let _done = Done(self);
        let mut at = lo;
        let mut i = 0usize;
        while at < hi {
            if i % 256 == 0 && self.stop.load(Ordering::Relaxed) {
                break;
            }
            // SAFETY: the caller's promise (`at` is `lo` or a page start inside the range);
            // volatile, so that the write is made though nothing reads it.
            unsafe { std::ptr::write_volatile(at as *mut u32, 0) };
            at = (at / PAGE + 1) * PAGE;
            i += 1;
        }
    }

    /// One thread done (or never started).
    fn done(&self) {
        *lock(&self.left) -= 1;
        self.finished.notify_all();
    }

    /// Asks the threads to stop (the call is over).
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Until every thread is done.
    fn wait(&self) {
        let mut left = lock(&self.left);
        while *left > 0 {
            left = self.finished.wait(left).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// The result's downloads through the pinned ring, and where they are.
trait Downloads {
    /// Queues the download of the result's words `lo..hi` into `dst` (pinned, `hi - lo` words).
    ///
    /// # Safety
    /// `dst` must stay valid and untouched by the host until [`Downloads::arrived`] has returned
    /// for this chunk.
    unsafe fn queue(&mut self, lo: usize, hi: usize, dst: *mut u32) -> Result<()>;
    /// Waits for the oldest queued download (downloads complete in the order queued).
    fn arrived(&mut self) -> Result<()>;
}

/// The device's downloads: DMAs on the call's stream, an event after each.
struct StreamDownloads<'a> {
    stream: &'a Arc<CudaStream>,
    /// The result's device address.
    dev: u64,
    arrived: std::collections::VecDeque<cudarc::driver::CudaEvent>,
}

impl Downloads for StreamDownloads<'_> {
    unsafe fn queue(&mut self, lo: usize, hi: usize, dst: *mut u32) -> Result<()> {
        // SAFETY: the result holds words lo..hi on the device; `dst` is pinned memory for hi - lo
        // words that the host leaves alone until this download's event has completed.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                dst.cast(),
                self.dev + (lo * 4) as u64,
                (hi - lo) * 4,
                self.stream.cu_stream(),
            )
        }
        .result()
        .during("result download")?;
        let done = self.stream.record_event(None).during("result download")?;
        self.arrived.push_back(done);
        Ok(())
    }

    fn arrived(&mut self) -> Result<()> {
        let done = self.arrived.pop_front().ok_or(Error::LengthMismatch {
            expected: 1,
            got: 0,
        })?;
        done.synchronize().during("result download")
    }
}

/// The result's way down: chunks of `chunk` words, through `slots` pinned slots used in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ring {
    chunk: usize,
    slots: usize,
}

/// 8 slots of 16 MiB: 128 MiB of pinned memory beside the staged input, whatever the result's
/// size; the DMAs keep 7 chunks ahead of the copy out.
const RING: Ring = Ring {
    chunk: CHUNK_WORDS,
    slots: 8,
};

/// One step of the ring's work ([`Ring::steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RingStep {
    /// Queue chunk k's download into its slot.
    Download(usize),
    /// Wait for chunk k's download, then hand its copy into the vector to the crew.
    CopyOut(usize),
    /// Wait until chunk k's copy out has completed: its slot is free.
    Copied(usize),
}

impl Ring {
    /// Pinned words the ring takes for a result of `len` words.
    fn words(self, len: usize) -> usize {
        len.min(self.chunk * self.slots)
    }

    fn chunks(self, len: usize) -> usize {
        len.div_ceil(self.chunk)
    }

    /// Chunk k's slot, as an offset in words from the ring's start.
    fn slot(self, k: usize) -> usize {
        (k % self.slots) * self.chunk
    }

    /// The order of work for `chunks` chunks: the first slots' downloads, then for each chunk its
    /// copy out, after which the slot of the chunk before it, once copied, takes the next
    /// download. So the crew always has a chunk to copy while it finishes the previous one, and
    /// the DMAs run up to `slots - 1` chunks ahead. `copy_out` takes two slots or more.
    fn steps(self, chunks: usize) -> impl Iterator<Item = RingStep> {
        let ahead = self.slots.min(chunks);
        (0..ahead)
            .map(RingStep::Download)
            .chain((0..chunks).flat_map(move |k| {
                let refill = (k >= 1 && k - 1 + ahead < chunks)
                    .then(|| [RingStep::Copied(k - 1), RingStep::Download(k - 1 + ahead)]);
                std::iter::once(RingStep::CopyOut(k)).chain(refill.into_iter().flatten())
            }))
    }

    /// Brings the `len`-word result down through the ring into `out`, whose first `n` words are
    /// the input (staged at `pinned`, the ring after it), and returns the times from `started`
    /// to the first chunk's arrival and to the last's. The copies out run as chunks arrive and
    /// overwrite the input; on an error the input's words are copied back from their staged copy
    /// before the error is returned, so `out` holds the input again. `before_growth` runs at most
    /// once, before the first copy into words from `n` on.
    ///
    /// # Safety
    /// `pinned` must hold `n + self.words(len)` words, the input in its first `n`, untouched by
    /// anyone else during the call; `out` must be valid for `len` writes (its first `n` words
    /// readable), disjoint from `pinned`; `downloads` must write the result's words as queued.
    #[allow(clippy::too_many_arguments)]
    unsafe fn copy_out(
        self,
        crew: &Crew,
        downloads: &mut impl Downloads,
        pinned: *mut u32,
        out: *mut u32,
        n: usize,
        len: usize,
        started: Instant,
        before_growth: &mut dyn FnMut(),
    ) -> Result<(Duration, Duration)> {
        assert!(self.slots >= 2 && self.chunk > 0, "{self:?}");
        let mut growth_ready = len <= n;
        // SAFETY: the ring lies after the staged input, inside `pinned` (the caller's promise).
        let ring = unsafe { pinned.add(n) };
        let chunks = self.chunks(len);
        let span = |k: usize| (k * self.chunk, len.min((k + 1) * self.chunk));
        let mut copied = Vec::with_capacity(chunks);
        let mut first = None;
        let mut run = || -> Result<()> {
            for step in self.steps(chunks) {
                match step {
                    RingStep::Download(k) => {
                        let (lo, hi) = span(k);
                        // SAFETY: the slot holds `chunk` words inside the ring; its previous
                        // chunk's copy out has completed (`Copied` comes first), and nothing reads
                        // it again before this chunk's `arrived`.
                        unsafe { downloads.queue(lo, hi, ring.add(self.slot(k))) }?;
                    }
                    RingStep::CopyOut(k) => {
                        downloads.arrived()?;
                        first.get_or_insert_with(|| started.elapsed());
                        let (lo, hi) = span(k);
                        if hi > n && !growth_ready {
                            before_growth();
                            growth_ready = true;
                        }
                        // SAFETY: the chunk is in its slot; words lo..hi of `out` are this chunk's
                        // alone, and neither range is touched until the crew's wait.
                        copied.push(unsafe {
                            crew.copy(out.add(lo), ring.add(self.slot(k)), hi - lo)
                        });
                    }
                    RingStep::Copied(k) => crew.wait_for(copied[k]),
                }
            }
            Ok(())
        };
        let done = run();
        let all_in = started.elapsed();
        crew.wait();
        if let Err(e) = done {
            if !copied.is_empty() {
                // SAFETY: the staged input (the first n words of `pinned`) is intact: the
                // downloads write only the ring. The crew has finished every earlier piece.
                unsafe { crew.copy(out, pinned, n) };
                crew.wait();
            }
            return Err(e);
        }
        Ok((first.unwrap_or(all_in), all_in))
    }
}

/// Asks Linux for transparent huge pages under `v` (a vector's spare capacity, not yet written:
/// after a large block grows, fresh memory): its first writes then fault once per 2 MiB instead of
/// once per 4 KiB page, and freeing the result later unmaps fewer pages. Advice only: where
/// the kernel has them switched off, or on other systems, nothing changes.
fn advise_huge_pages(v: &mut [std::mem::MaybeUninit<u32>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (v.as_mut_ptr() as usize).next_multiple_of(HUGE);
        let end = (v.as_mut_ptr() as usize + std::mem::size_of_val(v)) / HUGE * HUGE;
        if end > start {
            // SAFETY: [start, end) lies inside `v`, memory this call owns; MADV_HUGEPAGE changes
            // no contents and no mapping, only how later faults are served.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Transposes the row-major `rows x cols` matrix `input` into `output`.
fn transpose(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    input: &CudaSlice<u32>,
    output: &mut CudaSlice<u32>,
    rows: u32,
    cols: u32,
) -> Result<()> {
    let (i, _gi) = input.device_ptr(stream);
    let (o, _go) = output.device_ptr_mut(stream);
    transpose_words(gpu, stream, i, o, rows, cols, 1, false)
}

/// The CPU twin of the GPU path, step for step on raw words: transpose, the CPU reference NTT
/// ([`reference::ntt_batch`]) where [`SmallNtt`] runs, [`coset::expand_twin`] where the coset
/// kernel runs, transpose back; the forward transforms' results with their rows in bit-reversed
/// order ([`Op::bit_reversed`]), as the kernels' NR leaves them. Checks on any machine that
/// Montgomery-form words, plain-residue shifts and the steps' order reproduce Plonky3.
pub fn twin_transform(
    field: SmallField,
    words: &[u32],
    w: usize,
    log_h: u32,
    op: Op,
) -> Result<Vec<u32>> {
    if log_h > field.two_adicity() {
        return Err(Error::SizeUnsupported {
            field: field.name(),
            log_n: log_h,
            max: field.two_adicity(),
        });
    }
    let h = 1usize << log_h;
    let expected = w.saturating_mul(h);
    if w == 0 || words.len() != expected {
        return Err(Error::LengthMismatch {
            expected,
            got: words.len(),
        });
    }
    let mut cols = transpose_host(words, h, w);
    let mut out = match op {
        Op::Dft => {
            reference::ntt_batch(field, &mut cols, log_h, Direction::Forward)?;
            cols
        }
        Op::CosetDft { shift } => {
            let mut x = coset::expand_twin(field, &cols, shift, log_h, log_h)?;
            reference::ntt_batch(field, &mut x, log_h, Direction::Forward)?;
            x
        }
        Op::Idft => {
            reference::ntt_batch(field, &mut cols, log_h, Direction::Inverse)?;
            cols
        }
        Op::CosetIdft { shift_inv } => {
            reference::ntt_batch(field, &mut cols, log_h, Direction::Inverse)?;
            coset::expand_twin(field, &cols, shift_inv, log_h, log_h)?
        }
        Op::CosetLde { added_bits, shift } => {
            reference::ntt_batch(field, &mut cols, log_h, Direction::Inverse)?;
            let mut x = coset::expand_twin(field, &cols, shift, log_h, log_h + added_bits)?;
            reference::ntt_batch(field, &mut x, log_h + added_bits, Direction::Forward)?;
            x
        }
    };
    let rows = h << op.added_bits();
    if op.bit_reversed() {
        for col in out.chunks_mut(rows) {
            zkntt_core::reference::bit_reverse_permute(col);
        }
    }
    Ok(transpose_host(&out, w, rows))
}

/// Row-major `rows x cols` to row-major `cols x rows` (the twin's transpose).
fn transpose_host(x: &[u32], rows: usize, cols: usize) -> Vec<u32> {
    let mut out = vec![0u32; x.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with the blowup past u32 go to the CPU untouched, before the GPU is opened (the sum
    /// overflowed: a panic in debug builds, a wrapped size sent to the GPU in release).
    #[test]
    fn an_overflowing_blowup_is_the_cpus() {
        use p3_baby_bear::BabyBear;
        use p3_field::PrimeCharacteristicRing;
        let m = RowMajorMatrix::new((0..16u32).map(BabyBear::from_u32).collect(), 1);
        for added_bits in [u32::MAX, u32::MAX - 3] {
            let op = Op::CosetLde {
                added_bits,
                shift: 1,
            };
            let back = GpuDft::<BabyBear>::default().on_gpu(m.clone(), op);
            assert_eq!(back.map_err(|m| m.values), Err(m.values.clone()));
        }
    }

    #[test]
    fn words_are_montgomery_form_with_r_2_to_32() {
        fn check<F: GpuField>() {
            let q = F::FIELD.modulus() as u64;
            for x in [0u32, 1, 2, 12345, F::FIELD.modulus() - 1] {
                let want = F::from_u32(x);
                let mut v = vec![want];
                let word = into_words(&mut v, |words| {
                    // Grown and written in place, as the GPU path writes its results.
                    words.push(words[0]);
                    words[0]
                });
                assert_eq!(word as u64, ((x as u64) << 32) % q, "{:?} {x}", F::FIELD);
                assert_eq!(word, want.to_unique_u32());
                assert_eq!(v, [want, want]);
            }
        }
        check::<BabyBear>();
        check::<KoalaBear>();
    }

    #[test]
    fn crew_copies_every_piece() {
        // Three ranges handed out before one wait, one of them into spare capacity, and a scope
        // that ends with pieces never waited for.
        let src: Vec<u32> = (0..(5 * PIECE_WORDS as u32 + 77)).collect();
        let mut a = vec![0u32; src.len()];
        let mut b: Vec<u32> = Vec::with_capacity(src.len());
        Crew::scope(3, |crew| {
            let half = src.len() / 2;
            // SAFETY: disjoint ranges of `a`, `b`'s capacity and `src`, untouched until the wait.
            unsafe {
                crew.copy(a.as_mut_ptr(), src.as_ptr(), half);
                crew.copy(
                    a.as_mut_ptr().add(half),
                    src.as_ptr().add(half),
                    src.len() - half,
                );
                crew.copy(b.as_mut_ptr(), src.as_ptr(), src.len());
            }
            crew.wait();
        });
        // SAFETY: the crew wrote every word of `b`'s first src.len().
        unsafe { b.set_len(src.len()) };
        assert_eq!(a, src);
        assert_eq!(b, src);
        let mut c = vec![0u32; src.len()];
        // SAFETY: as above; the scope's end waits for the pieces under way and drops the rest.
        Crew::scope(3, |crew| unsafe {
            crew.copy(c.as_mut_ptr(), src.as_ptr(), src.len())
        });
        // No helpers: the waiting thread copies everything.
        let mut d = vec![0u32; src.len()];
        Crew::scope(0, |crew| {
            // SAFETY: as above.
            unsafe { crew.copy(d.as_mut_ptr(), src.as_ptr(), src.len()) };
            crew.wait();
        });
        assert_eq!(d, src);
        assert_eq!(Crew::helpers(1), 0);
        assert!(Crew::helpers(64 * PIECE_WORDS) <= 15);
    }

    #[test]
    fn prefault_writes_in_every_page_and_waits() {
        let mut v = vec![7u32; 5 * 1024 + 300];
        let (lo, hi) = (
            v.as_mut_ptr() as usize + 4 * 37,
            v.as_mut_ptr() as usize + 4 * v.len(),
        );
        let mid = lo + 2 * 4096;
        let pf = Prefault::new(3);
        std::thread::scope(|sc| {
            let pf = &pf;
            // SAFETY: disjoint ranges of `v`, untouched by anyone else until the wait.
            sc.spawn(move || unsafe { pf.touch(lo, mid) });
            sc.spawn(move || unsafe { pf.touch(mid, hi) });
            pf.done(); // a thread that never started
            pf.wait();
        });
        let pages: std::collections::BTreeSet<usize> =
            (lo..hi).step_by(4).map(|a| a / 4096).collect();
        for page in pages {
            let words: Vec<usize> = (0..v.len())
                .filter(|&i| {
                    let a = v.as_ptr() as usize + 4 * i;
                    a >= lo && a / 4096 == page && v[i] == 0
                })
                .collect();
            assert!(!words.is_empty(), "page {page} not written");
        }
        assert!(v[..37].iter().all(|&x| x == 7));
        assert!(
            Prefault::new(0)
                .left
                .lock()
                .map(|l| *l == 0)
                .unwrap_or(false)
        );
    }

    #[test]
    fn ring_reuses_a_slot_only_after_its_copy_out() {
        for slots in 2..6 {
            let ring = Ring { chunk: 10, slots };
            for chunks in 0..20 {
                let steps: Vec<RingStep> = ring.steps(chunks).collect();
                let at = |want: RingStep| steps.iter().position(|&s| s == want);
                let downloads: Vec<usize> = steps
                    .iter()
                    .filter_map(|s| match s {
                        RingStep::Download(k) => Some(*k),
                        _ => None,
                    })
                    .collect();
                let copies: Vec<usize> = steps
                    .iter()
                    .filter_map(|s| match s {
                        RingStep::CopyOut(k) => Some(*k),
                        _ => None,
                    })
                    .collect();
                // Every chunk queued and copied once, in order (downloads complete in the order
                // queued, and each copy waits for the oldest).
                assert_eq!(
                    downloads,
                    (0..chunks).collect::<Vec<_>>(),
                    "{ring:?} {chunks}"
                );
                assert_eq!(copies, downloads, "{ring:?} {chunks}");
                for k in 0..chunks {
                    assert!(at(RingStep::Download(k)) < at(RingStep::CopyOut(k)));
                    if k >= slots {
                        // The slot's previous chunk copied out before this download is queued.
                        let freed = at(RingStep::Copied(k - slots)).expect("slot freed");
                        assert!(freed > at(RingStep::CopyOut(k - slots)).unwrap());
                        assert!(
                            freed < at(RingStep::Download(k)).unwrap(),
                            "{ring:?} {chunks} {k}"
                        );
                    }
                }
                assert_eq!(ring.slot(slots + 1), ring.slot(1));
            }
        }
    }

    /// Downloads from a host vector: each written into its slot when queued (the earliest a DMA
    /// may land) or when waited for (the latest), the `fail_at`-th wait failing.
    struct FakeDownloads<'a> {
        result: &'a [u32],
        queued: std::collections::VecDeque<(usize, usize, *mut u32)>,
        at_queue: bool,
        waits: usize,
        fail_at: Option<usize>,
    }

    impl Downloads for FakeDownloads<'_> {
        unsafe fn queue(&mut self, lo: usize, hi: usize, dst: *mut u32) -> Result<()> {
            if self.at_queue {
                // SAFETY: the caller's promise: `dst` holds hi - lo words, left alone.
                unsafe {
                    std::ptr::copy_nonoverlapping(self.result[lo..hi].as_ptr(), dst, hi - lo)
                };
            }
            self.queued.push_back((lo, hi, dst));
            Ok(())
        }

        fn arrived(&mut self) -> Result<()> {
            self.waits += 1;
            if self.fail_at == Some(self.waits) {
                return Err(Error::HostMemory { words: 0 });
            }
            let (lo, hi, dst) = self.queued.pop_front().expect("a queued download");
            if !self.at_queue {
                // SAFETY: as in `queue`.
                unsafe {
                    std::ptr::copy_nonoverlapping(self.result[lo..hi].as_ptr(), dst, hi - lo)
                };
            }
            Ok(())
        }
    }

    #[test]
    fn ring_copies_the_result_out_or_puts_the_input_back() {
        let ring = Ring {
            chunk: 1000,
            slots: 3,
        };
        for (n, bits) in [
            (3500usize, 0u32),
            (3500, 1),
            (1000, 2),
            (700, 0),
            (12_345, 1),
        ] {
            let len = n << bits;
            let input: Vec<u32> = (0..n as u32).collect();
            let result: Vec<u32> = (0..len as u32)
                .map(|x| x.wrapping_mul(2_654_435_761))
                .collect();
            let chunks = ring.chunks(len);
            for at_queue in [false, true] {
                for fail_at in std::iter::once(None).chain((1..=chunks).map(Some)) {
                    let mut pinned = vec![0u32; n + ring.words(len)];
                    pinned[..n].copy_from_slice(&input);
                    let mut out = input.clone();
                    out.reserve_exact(len - n);
                    for w in &mut out.spare_capacity_mut()[..len - n] {
                        w.write(u32::MAX);
                    }
                    let mut downloads = FakeDownloads {
                        result: &result,
                        queued: Default::default(),
                        at_queue,
                        waits: 0,
                        fail_at,
                    };
                    let mut gated = 0;
                    let got = Crew::scope(3, |crew| {
                        let out_at = out.as_mut_ptr();
                        let mut gate = || {
                            // Before any copy into the growth: its words still as filled above.
                            crew.wait();
                            let growth = &out.spare_capacity_mut()[..len - n];
                            // SAFETY: every word of the growth was written (u32::MAX) above.
                            assert!(
                                growth
                                    .iter()
                                    .all(|w| unsafe { w.assume_init() } == u32::MAX)
                            );
                            gated += 1;
                        };
                        // SAFETY: `pinned` holds n + ring.words(len) words, the input first; `out`
                        // has room for len words.
                        unsafe {
                            ring.copy_out(
                                crew,
                                &mut downloads,
                                pinned.as_mut_ptr(),
                                out_at,
                                n,
                                len,
                                Instant::now(),
                                &mut gate,
                            )
                        }
                    });
                    let what = format!("n {n} len {len} at_queue {at_queue} fail_at {fail_at:?}");
                    // The f-th wait fails before chunk f - 1 is copied: chunks 0..f-1 were.
                    let reaches_growth = fail_at.is_none_or(|f| (f - 1) * ring.chunk > n);
                    let want = usize::from(len > n && reaches_growth);
                    assert_eq!(gated, want, "{what}: the growth's gate");
                    assert_eq!(&pinned[..n], &input[..], "{what}: staged input");
                    match fail_at {
                        None => {
                            got.expect(&what);
                            // SAFETY: the ring wrote every word 0..len.
                            unsafe { out.set_len(len) };
                            assert_eq!(out, result, "{what}");
                        }
                        Some(_) => {
                            assert!(got.is_err(), "{what}");
                            assert_eq!(out, input, "{what}: the input put back");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn plonky3_roots_are_the_kernels_roots() {
        fn check<F: GpuField>() {
            for k in 0..=F::TWO_ADICITY {
                let want = F::FIELD.root_of_unity(k as u32).unwrap();
                assert_eq!(
                    F::two_adic_generator(k).as_canonical_u32(),
                    want,
                    "{:?} 2^{k}",
                    F::FIELD
                );
            }
            assert_eq!(F::FIELD.two_adicity() as usize, F::TWO_ADICITY);
            assert_eq!(F::FIELD.modulus(), F::ORDER_U32);
        }
        check::<BabyBear>();
        check::<KoalaBear>();
    }
}
