//! CUDA-event and wall-clock medians: the runtime's, `zkntt_gpu::timing`.

pub use zkntt_gpu::timing::{median, median_ms, median_wall_ms};
