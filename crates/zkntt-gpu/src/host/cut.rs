//! How a call is cut: into units of whole transforms moved in chunks ([`Cut`]), or, for a single
//! transform of the three-stage plan, into ranges of columns ([`ColumnCut`]).

use zkntt_core::{BatchLayout, NttConfig};

/// u64 words per element: the field types with kernels are four 64-bit limbs (asserted in
/// `zkntt-core`; `device_vec::words` refuses any other type).
pub(crate) const WORDS_PER_ELEMENT: usize = 4;
/// Pinned slots of the copy-back ring: chunks in flight device-to-host while the CPU empties one.
pub(crate) const RING_SLOTS: usize = 4;
/// Column-range calls: ring slots for at least this many bytes in flight (small ranges need more
/// than four slots, or each range's wait and queueing latency shows; benches/NOTES.md).
const RING_BYTES: usize = 64 << 20;
/// Automatic chunk size, between these bounds: each chunk costs a fixed time on the host, while
/// the first chunk in and the last one out are not overlapped. A single transform: half the data,
/// at most 16 MiB; a batch: 1/8 of a unit, at most 8 MiB, so that the units' two directions
/// interleave finely (the sweeps are in benches/NOTES.md).
const MIN_AUTO_CHUNK_BYTES: usize = 1 << 20;
const MAX_AUTO_CHUNK_BYTES: usize = 16 << 20;
const MAX_AUTO_BATCH_CHUNK_BYTES: usize = 8 << 20;
/// A batch unit holds whole transforms and at least this many bytes.
const MIN_UNIT_BYTES: usize = 4 << 20;
/// At most this many units per call (each has three events).
const MAX_UNITS: usize = 1024;
/// Column ranges of a single staged transform: automatically 1/8 of the data, 1-8 MiB (below
/// 8 MiB the 2-D DMAs' rows get short; the sweep is in benches/NOTES.md). Never more than
/// MAX_COLUMN_CHUNKS ranges (small chunk settings are for the tests).
const MAX_AUTO_RANGE_BYTES: usize = 8 << 20;
pub(crate) const MAX_COLUMN_CHUNKS: usize = 256;

/// How a single staged transform is cut: `chunks` ranges of `width` columns of its `rows` x
/// `columns` matrix (element a*columns + c). Chunk j is row a's words
/// `segment(j, a) .. + segment_words()` for every row a.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColumnCut {
    pub rows: usize,
    pub columns: usize,
    pub width: usize,
    pub chunks: usize,
    /// Slots of the ring (see [`Self::ring_slots`]).
    ring: usize,
}

impl ColumnCut {
    /// Chunks of about `chunk_bytes` (0: automatic), a power of two of them, each a multiple of
    /// `per_block` columns (the column stage's block width).
    pub fn new(log_rows: u32, columns: usize, per_block: usize, chunk_bytes: usize) -> Self {
        let rows = 1usize << log_rows;
        let total = rows * columns * WORDS_PER_ELEMENT * 8;
        let wanted = if chunk_bytes != 0 {
            chunk_bytes
        } else {
            (total / 8).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_RANGE_BYTES)
        };
        let most = (columns / per_block).clamp(1, MAX_COLUMN_CHUNKS);
        let chunks = (1usize << (total / wanted).max(1).ilog2()).min(most);
        let chunk_bytes = total / chunks;
        Self {
            rows,
            columns,
            width: columns / chunks,
            chunks,
            ring: (RING_BYTES / chunk_bytes).max(RING_SLOTS).min(chunks),
        }
    }

    /// At most `bytes` of ring, two slots at least (a streamed call's pinned memory is bounded).
    pub fn cap_ring(mut self, bytes: usize) -> Self {
        let most = (bytes / (self.chunk_words() * 8)).max(2);
        self.ring = self.ring.min(most);
        self
    }

    pub fn segment_words(&self) -> usize {
        self.width * WORDS_PER_ELEMENT
    }

    pub fn row_words(&self) -> usize {
        self.columns * WORDS_PER_ELEMENT
    }

    pub fn chunk_words(&self) -> usize {
        self.rows * self.segment_words()
    }

    /// Slots of the copy-back ring: RING_BYTES in flight, at least RING_SLOTS, at most a slot
    /// per range (fewer when capped).
    pub fn ring_slots(&self) -> usize {
        self.ring
    }

    /// Word offset of row `a`'s segment of chunk `j`.
    pub fn segment(&self, j: usize, a: usize) -> usize {
        a * self.row_words() + j * self.segment_words()
    }
}

/// How one call is cut up: `units` units of `unit_words` words (`rows` transforms each), moved in
/// chunks of at most `chunk_words`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    pub units: usize,
    pub rows: usize,
    pub unit_words: usize,
    pub chunk_words: usize,
}

impl Cut {
    /// `len` elements, transforms of `n` points, `chunk_bytes` as set (0: automatic).
    pub fn new<F>(len: usize, n: usize, cfg: &NttConfig<F>, chunk_bytes: usize) -> Self {
        let transform_bytes = n * WORDS_PER_ELEMENT * 8;
        let rows = if cfg.batch > 1 && cfg.layout == BatchLayout::Rows {
            // The fewest transforms per unit that divide the batch and fill MIN_UNIT_BYTES.
            (1..=cfg.batch)
                .find(|&d| {
                    cfg.batch % d == 0
                        && (d * transform_bytes >= MIN_UNIT_BYTES || d == cfg.batch)
                        && cfg.batch / d <= MAX_UNITS
                })
                .unwrap_or(cfg.batch)
        } else {
            cfg.batch
        };
        let unit_words = rows * n * WORDS_PER_ELEMENT;
        let units = len * WORDS_PER_ELEMENT / unit_words;
        let wanted = if chunk_bytes != 0 {
            chunk_bytes
        } else if units == 1 {
            (unit_words * 8 / 2).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_CHUNK_BYTES)
        } else {
            (unit_words * 8 / 8).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_BATCH_CHUNK_BYTES)
        };
        // Whole elements, at least one, at most a unit.
        let chunk_words = (wanted / 8 / WORDS_PER_ELEMENT * WORDS_PER_ELEMENT)
            .clamp(WORDS_PER_ELEMENT, unit_words);
        Self {
            units,
            rows,
            unit_words,
            chunk_words,
        }
    }

    pub fn chunks_per_unit(&self) -> usize {
        self.unit_words.div_ceil(self.chunk_words)
    }

    pub fn total_chunks(&self) -> usize {
        self.units * self.chunks_per_unit()
    }

    /// (unit, offset of the chunk in its unit, words, offset in the whole buffer) of chunk `j`.
    pub fn chunk(&self, j: usize) -> (usize, usize, usize, usize) {
        let per = self.chunks_per_unit();
        let (unit, k) = (j / per, j % per);
        let off = k * self.chunk_words;
        let len = self.chunk_words.min(self.unit_words - off);
        (unit, off, len, unit * self.unit_words + off)
    }

    pub fn is_last_of_unit(&self, j: usize) -> bool {
        j % self.chunks_per_unit() == self.chunks_per_unit() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn single_transforms_are_one_unit() {
        let cfg = NttConfig::<Fr>::forward();
        let c = Cut::new(1 << 23, 1 << 23, &cfg, 0);
        assert_eq!((c.units, c.rows, c.unit_words), (1, 1, 1 << 25));
        assert_eq!(c.chunk_words * 8, 16 << 20, "256 MiB in 16 MiB chunks");
        assert_eq!(c.total_chunks(), 16);
        let c = Cut::new(1 << 20, 1 << 20, &cfg, 0);
        assert_eq!(c.chunk_words * 8, 16 << 20, "32 MiB in two chunks");
        let small = Cut::new(1 << 10, 1 << 10, &cfg, 0);
        assert_eq!((small.units, small.total_chunks()), (1, 1));
        assert_eq!(small.chunk_words, small.unit_words);
    }

    #[test]
    fn batches_are_cut_into_units_of_whole_transforms() {
        let cfg = NttConfig::<Fr>::forward().with_batch(8);
        let c = Cut::new(8 << 20, 1 << 20, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (8, 1),
            "8 x 2^20: one transform (32 MiB) per unit"
        );
        let cfg = NttConfig::<Fr>::forward().with_batch(64);
        let c = Cut::new(64 << 12, 1 << 12, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (2, 32),
            "2^12 points are 128 KiB: 32 per 4 MiB unit"
        );
        let cfg = NttConfig::<Fr>::forward().with_batch(7);
        let c = Cut::new(7 << 10, 1 << 10, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (1, 7),
            "a prime batch of small transforms: one unit"
        );
        let cols = NttConfig::<Fr>::forward()
            .with_batch(8)
            .with_layout(BatchLayout::Columns);
        assert_eq!(
            Cut::new(8 << 20, 1 << 20, &cols, 0).units,
            1,
            "columns interleave"
        );
    }

    #[test]
    fn chunks_cover_every_word_once() {
        let cfg = NttConfig::<Fr>::forward().with_batch(3);
        for chunk_bytes in [0usize, 1, 32, 100, 4096, 1 << 20] {
            let c = Cut::new(3 << 18, 1 << 18, &cfg, chunk_bytes);
            let mut next = 0;
            for j in 0..c.total_chunks() {
                let (unit, off, len, at) = c.chunk(j);
                assert_eq!(at, next, "chunk {j} of {c:?}");
                assert_eq!(at, unit * c.unit_words + off);
                assert!(len > 0 && len % WORDS_PER_ELEMENT == 0);
                assert_eq!(c.is_last_of_unit(j), off + len == c.unit_words);
                next += len;
            }
            assert_eq!(next, 3 << 20, "{c:?}");
        }
    }

    #[test]
    fn column_chunks_cover_every_word_once() {
        // 2^23 as the engine plans it: 2^10 rows of 2^13 columns, one column per block.
        let c = ColumnCut::new(10, 1 << 13, 1, 0);
        assert_eq!(
            (c.chunks, c.chunk_words() * 8),
            (32, 8 << 20),
            "2^23: 32 x 8 MiB"
        );
        // 2^20: 2^8 rows of 2^12 columns, four per block.
        let c = ColumnCut::new(8, 1 << 12, 4, 0);
        assert_eq!(
            (c.chunks, c.chunk_words() * 8),
            (8, 4 << 20),
            "2^20: 8 x 4 MiB"
        );
        // Tiny settings stop at one block's columns per chunk, and at MAX_COLUMN_CHUNKS.
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, 1).chunks, 64);
        assert_eq!(ColumnCut::new(2, 1 << 12, 1, 32).chunks, MAX_COLUMN_CHUNKS);
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, usize::MAX).chunks, 1);
        // The ring: 64 MiB in flight, four slots at least, one per range at most.
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 16 << 20).ring_slots(),
            4,
            "2^23, 16 MiB"
        );
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 0).ring_slots(),
            8,
            "2^23, 8 MiB"
        );
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 1 << 20).ring_slots(),
            64,
            "2^23, 1 MiB"
        );
        assert_eq!(
            ColumnCut::new(8, 1 << 12, 4, 1 << 20).ring_slots(),
            32,
            "2^20, 1 MiB"
        );
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, usize::MAX).ring_slots(), 1);
        // Capped for a streamed call: within the bytes given, two slots at least.
        let c = ColumnCut::new(10, 1 << 13, 1, 0).cap_ring(20 << 20);
        assert_eq!(c.ring_slots(), 2, "2^23, 8 MiB ranges, 20 MiB of ring");
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 0)
                .cap_ring(1 << 30)
                .ring_slots(),
            8
        );
        for (log_rows, columns, per, bytes) in [
            (3u32, 64usize, 2usize, 0usize),
            (4, 32, 1, 1000),
            (2, 16, 4, 96),
        ] {
            let c = ColumnCut::new(log_rows, columns, per, bytes);
            assert!(c.chunks.is_power_of_two() && c.width % per == 0, "{c:?}");
            let mut seen = vec![0u8; c.rows * c.row_words()];
            for j in 0..c.chunks {
                for a in 0..c.rows {
                    let at = c.segment(j, a);
                    seen[at..at + c.segment_words()]
                        .iter_mut()
                        .for_each(|s| *s += 1);
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{c:?}");
        }
    }
}
