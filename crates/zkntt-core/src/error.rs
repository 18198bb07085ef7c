/// Errors of the configuration checks shared by the CPU reference and the GPU engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The buffer cannot be split into `batch` transforms of a power-of-two size.
    #[error("length {len} is not batch ({batch}) x 2^k")]
    BadLength { len: usize, batch: usize },
    /// The transform is larger than the field's two-adicity allows.
    #[error("domain 2^{log_n} is larger than the field's two-adicity allows (2^{max})")]
    DomainTooLarge { log_n: u32, max: u32 },
    /// A batch of zero transforms was asked for.
    #[error("batch size must be at least 1")]
    ZeroBatch,
    /// A coset offset of zero does not define a coset.
    #[error("coset offset must be non-zero")]
    ZeroCosetOffset,
    /// The 2-D split asks for more layers than the transform has.
    #[error("2-D split 2^{log_p} x 2^(log_n - log_p) does not fit a transform of 2^{log_n}")]
    BadSplit { log_n: u32, log_p: u32 },
    /// A plan made for one transform size applied to another.
    #[error("a plan for 2^{plan_log_n} applied to transforms of 2^{log_n}")]
    PlanSize { plan_log_n: u32, log_n: u32 },
    /// The distributed NTT's ranks must be a power of two dividing both N1 and N2 (so N >= ranks^2).
    #[error(
        "{ranks} ranks cannot split 2^{log_n1} x 2^{log_n2}: ranks must be a power of two dividing both sides (N >= ranks^2)"
    )]
    BadRanks {
        ranks: usize,
        log_n1: u32,
        log_n2: u32,
    },
    /// A coset low-degree extension is described by its forward half: a forward transform in
    /// natural order (NN) with a coset offset.
    #[error(
        "a coset LDE takes a forward, natural-order (NN) configuration with a coset offset ({0})"
    )]
    NotAnLde(&'static str),
    /// An ordering a model does not implement (the distributed model does natural order only).
    #[error("ordering {ordering:?} is not modelled here: natural order (NN) only")]
    OrderingNotModelled { ordering: crate::Ordering },
}
