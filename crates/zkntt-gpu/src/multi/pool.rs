//! A batch of transforms spread over several GPUs: one engine and one host pipeline per device,
//! each GPU given a contiguous share of the batch, all shares at once (one host thread each).

use crate::{Gpu, HostPipeline, NttEngine, Result};
use std::sync::Arc;
use zkntt_core::{BatchLayout, GpuField, NttConfig};

/// Host-to-host NTTs on several GPUs: a batch of row transforms is cut into one contiguous share
/// per GPU, in proportion to the GPUs' number; each share goes through that GPU's own
/// [`HostPipeline`] (its pinned buffers, copy streams and copy workers), all GPUs at once.
///
/// ```no_run
/// use ark_bn254::Fr;
/// use zkntt_gpu::multi::GpuPool;
/// use zkntt_gpu::NttConfig;
///
/// let pool = GpuPool::all_devices()?;
/// let mut polys = vec![Fr::from(5u64); 64 << 20];       // 64 transforms of 2^20
/// pool.ntt(&mut polys, &NttConfig::forward().with_batch(64))?;
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
#[derive(Debug)]
pub struct GpuPool {
    pipelines: Vec<HostPipeline>,
}

impl GpuPool {
    /// A pool over the given engines (distinct devices), in that order.
    pub fn new(engines: Vec<Arc<NttEngine>>) -> Result<Self> {
        super::distinct_ordinals(&engines, "a pool")?;
        Ok(Self {
            pipelines: engines.into_iter().map(HostPipeline::new).collect(),
        })
    }

    /// A pool over every visible GPU ([`Gpu::device_count`]).
    pub fn all_devices() -> Result<Self> {
        Self::with_devices(&(0..Gpu::device_count()).collect::<Vec<_>>())
    }

    /// A pool over the listed devices.
    pub fn with_devices(ordinals: &[usize]) -> Result<Self> {
        Self::new(super::engines_on(ordinals)?)
    }

    /// The devices, in the order shares are handed out.
    pub fn devices(&self) -> Vec<usize> {
        self.pipelines.iter().map(|p| p.gpu().ordinal()).collect()
    }

    /// Each device's host pipeline (its settings: pinned limit, chunk size, copy threads).
    pub fn pipelines(&self) -> &[HostPipeline] {
        &self.pipelines
    }

    /// How a batch of `batch` transforms is shared: transforms per GPU, in device order (the
    /// first `batch % k` GPUs take one more).
    pub fn shares(&self, batch: usize) -> Vec<usize> {
        let k = self.pipelines.len();
        (0..k)
            .map(|i| batch / k + usize::from(i < batch % k))
            .collect()
    }

    /// The batch `cfg` describes, in place, spread over the GPUs. Rows only: a column batch
    /// ([`BatchLayout::Columns`]) interleaves its transforms, so it runs whole on the first GPU.
    /// On error the shares that failed are as [`HostPipeline::ntt`] leaves them (their input,
    /// or [`Error::InputLost`]); the first error is returned, after every share has finished.
    pub fn ntt<F: GpuField>(&self, data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
        let log_n = cfg.log_size(data.len())?;
        if cfg.layout == BatchLayout::Columns || cfg.batch == 1 {
            return self.pipelines[0].ntt(data, cfg);
        }
        let n = 1usize << log_n;
        let mut rest = data;
        let mut jobs = Vec::new();
        for (p, share) in self.pipelines.iter().zip(self.shares(cfg.batch)) {
            if share == 0 {
                continue;
            }
            let (mine, tail) = rest.split_at_mut(share * n);
            rest = tail;
            jobs.push((
                p,
                mine,
                NttConfig {
                    batch: share,
                    ..*cfg
                },
            ));
        }
        let results: Vec<Result<()>> = std::thread::scope(|s| {
            let handles: Vec<_> = jobs
                .into_iter()
                .map(|(p, mine, c)| s.spawn(move || p.ntt(mine, &c)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        results.into_iter().collect()
    }
}
