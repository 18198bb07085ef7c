//! The trait plumbing shared by [`crate::GpuDomain`] (ark-poly 0.6) and `v05::GpuDomain05`
//! (ark-poly 0.5): conversions, `Debug`, the CPU transform, and `EvaluationDomain` delegating to
//! the wrapped `Radix2EvaluationDomain` except for the transforms. The two traits come from
//! different crates, so the impls are stamped by a macro; the names in it (`FftField`,
//! `EvaluationDomain`, `Radix2EvaluationDomain`, `DomainCoeff`, `Elements`, `Direction`, `fmt`)
//! resolve where it is invoked, against that module's ark version. The type must have an `inner:
//! Radix2EvaluationDomain<F>` field and a `transform(&self, &mut Vec<T>, Direction)` method (which
//! hands its work to `crate::transform`, the GPU path both versions share).

macro_rules! radix2_domain_impls {
    ($domain:ident) => {
        impl<F: FftField> $domain<F> {
            /// The radix-2 domain this one wraps (its public fields, its inherent methods).
            pub fn as_radix2(&self) -> &Radix2EvaluationDomain<F> {
                &self.inner
            }

            pub fn into_radix2(self) -> Radix2EvaluationDomain<F> {
                self.inner
            }

            /// Whether the domain's fields agree with one another as `new` and `get_coset` make
            /// them. A domain built by hand or deserialised may not, and the GPU, which computes
            /// from the size and offset alone, would not transform it as ark's code does with
            /// those fields. Asked only on the way to the GPU (a root of unity, three products and
            /// a power of the offset: about 1 us).
            fn consistent(&self) -> bool {
                let d = &self.inner;
                let one = F::one();
                d.log_size_of_group < 64
                    && d.size == 1u64 << d.log_size_of_group
                    && d.size_as_field_element == F::from(d.size)
                    && d.size_as_field_element * d.size_inv == one
                    && F::get_root_of_unity(d.size) == Some(d.group_gen)
                    && d.group_gen * d.group_gen_inv == one
                    && d.offset * d.offset_inv == one
                    && d.offset.pow([d.size]) == d.offset_pow_size
            }

            /// ark-poly's own transform: the fallback, and every call the GPU does not take.
            fn cpu<T: DomainCoeff<F>>(&self, v: &mut Vec<T>, direction: Direction) {
                match direction {
                    Direction::Forward => self.inner.fft_in_place(v),
                    Direction::Inverse => self.inner.ifft_in_place(v),
                }
            }
        }

        impl<F: FftField> From<Radix2EvaluationDomain<F>> for $domain<F> {
            fn from(inner: Radix2EvaluationDomain<F>) -> Self {
                Self { inner }
            }
        }

        impl<F: FftField> From<$domain<F>> for Radix2EvaluationDomain<F> {
            fn from(d: $domain<F>) -> Self {
                d.inner
            }
        }

        impl<F: FftField> fmt::Debug for $domain<F> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "GPU radix-2 multiplicative subgroup of size {}",
                    self.inner.size
                )?;
                if !self.inner.offset.is_one() {
                    write!(f, ", coset offset {}", self.inner.offset)?;
                }
                Ok(())
            }
        }

        impl<F: FftField> EvaluationDomain<F> for $domain<F> {
            type Elements = Elements<F>;

            fn new(num_coeffs: usize) -> Option<Self> {
                Radix2EvaluationDomain::new(num_coeffs).map(Self::from)
            }

            fn new_coset(num_coeffs: usize, offset: F) -> Option<Self> {
                Radix2EvaluationDomain::new_coset(num_coeffs, offset).map(Self::from)
            }

            fn get_coset(&self, offset: F) -> Option<Self> {
                self.inner.get_coset(offset).map(Self::from)
            }

            fn compute_size_of_domain(num_coeffs: usize) -> Option<usize> {
                Radix2EvaluationDomain::<F>::compute_size_of_domain(num_coeffs)
            }

            fn size(&self) -> usize {
                self.inner.size()
            }

            fn size_as_field_element(&self) -> F {
                self.inner.size_as_field_element()
            }

            fn log_size_of_group(&self) -> u64 {
                self.inner.log_size_of_group()
            }

            fn size_inv(&self) -> F {
                self.inner.size_inv()
            }

            fn group_gen(&self) -> F {
                self.inner.group_gen()
            }

            fn group_gen_inv(&self) -> F {
                self.inner.group_gen_inv()
            }

            fn coset_offset(&self) -> F {
                self.inner.coset_offset()
            }

            fn coset_offset_inv(&self) -> F {
                self.inner.coset_offset_inv()
            }

            fn coset_offset_pow_size(&self) -> F {
                self.inner.coset_offset_pow_size()
            }

            fn fft_in_place<T: DomainCoeff<F>>(&self, coeffs: &mut Vec<T>) {
                self.transform(coeffs, Direction::Forward);
            }

            fn ifft_in_place<T: DomainCoeff<F>>(&self, evals: &mut Vec<T>) {
                self.transform(evals, Direction::Inverse);
            }

            // The element-wise methods stay on the CPU (ark-poly's code, on all cores with the `parallel`
            // feature): for data in host memory they are bound by memory traffic, and a GPU round trip
            // moves at least as many bytes over PCIe as the CPU touches in RAM, plus a launch.

            fn distribute_powers<T: DomainCoeff<F>>(coeffs: &mut [T], g: F) {
                Radix2EvaluationDomain::<F>::distribute_powers(coeffs, g)
            }

            fn distribute_powers_and_mul_by_const<T: DomainCoeff<F>>(coeffs: &mut [T], g: F, c: F) {
                Radix2EvaluationDomain::<F>::distribute_powers_and_mul_by_const(coeffs, g, c)
            }

            fn evaluate_all_lagrange_coefficients(&self, tau: F) -> Vec<F> {
                self.inner.evaluate_all_lagrange_coefficients(tau)
            }

            fn mul_polynomials_in_evaluation_domain(
                &self,
                self_evals: &[F],
                other_evals: &[F],
            ) -> Vec<F> {
                self.inner
                    .mul_polynomials_in_evaluation_domain(self_evals, other_evals)
            }

            fn evaluate_vanishing_polynomial(&self, tau: F) -> F {
                self.inner.evaluate_vanishing_polynomial(tau)
            }

            fn element(&self, i: usize) -> F {
                self.inner.element(i)
            }

            fn elements(&self) -> Elements<F> {
                self.inner.elements()
            }
        }
    };
}
