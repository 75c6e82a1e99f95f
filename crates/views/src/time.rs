//! Arithmetic on the model's times (cycles as `f64`, never NaN, non-negative
//! where they are converted): the views do several of these per instruction,
//! so they avoid libm calls and the NaN handling of `f64::max`.

/// Tolerance of time comparisons (slot times are sums of fractions).
pub(crate) const EPS: f64 = 1e-9;

/// `floor` of a time (non-negative, finite): the cycle it falls in. One
/// truncating conversion: `as i64` saturates, which costs a handful of
/// instructions on each of the several calls per instruction. Truncation is
/// floor for the non-negative times of the model; anything else maps to 0.
#[inline(always)]
pub(crate) fn floor_i(x: f64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86_64; cvttsd2si is defined for every input
    // (a NaN or an out-of-range value gives i64::MIN).
    let i = unsafe { std::arch::x86_64::_mm_cvttsd_si64(std::arch::x86_64::_mm_set_sd(x)) };
    #[cfg(not(target_arch = "x86_64"))]
    let i = x as i64;
    i.max(0)
}

/// `ceil` for non-negative times without a libm call.
#[inline(always)]
pub(crate) fn ceil_i(x: f64) -> i64 {
    let i = floor_i(x);
    i + ((i as f64) < x) as i64
}

/// max and min of two times (without the NaN handling of `f64::max`).
#[inline(always)]
pub(crate) fn fmax(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
pub(crate) fn fmin(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `x` within `[lo, hi]` (`lo <= hi`).
#[inline(always)]
pub(crate) fn fclamp(x: f64, lo: f64, hi: f64) -> f64 {
    fmin(fmax(x, lo), hi)
}
