// SVE daxpy y[i] += a * x[i], vector-length agnostic (whilelo): 2 ld1d + 1 st1d a vector; the V2's
// two store-data/address pipes each take the st1d's two uops, the three load pipes the rest (derivation in BENCHMARKS.md)
.Lloop:
    ld1d {z1.d}, p0/z, [x1, x3, lsl #3]
    ld1d {z2.d}, p0/z, [x2, x3, lsl #3]
    fmla z2.d, p0/m, z1.d, z0.d
    st1d {z2.d}, p0, [x2, x3, lsl #3]
    incd x3
    whilelo p0.d, x3, x4
    b.first .Lloop
