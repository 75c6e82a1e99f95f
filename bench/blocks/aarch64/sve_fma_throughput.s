// 24 independent SVE FMLA: the four FP/ASIMD pipes V0-V3 (24 / 4 = 6)
.Lloop:
    fmla z0.d, p0/m, z24.d, z25.d
    fmla z1.d, p0/m, z24.d, z25.d
    fmla z2.d, p0/m, z24.d, z25.d
    fmla z3.d, p0/m, z24.d, z25.d
    fmla z4.d, p0/m, z24.d, z25.d
    fmla z5.d, p0/m, z24.d, z25.d
    fmla z6.d, p0/m, z24.d, z25.d
    fmla z7.d, p0/m, z24.d, z25.d
    fmla z8.d, p0/m, z24.d, z25.d
    fmla z9.d, p0/m, z24.d, z25.d
    fmla z10.d, p0/m, z24.d, z25.d
    fmla z11.d, p0/m, z24.d, z25.d
    fmla z12.d, p0/m, z24.d, z25.d
    fmla z13.d, p0/m, z24.d, z25.d
    fmla z14.d, p0/m, z24.d, z25.d
    fmla z15.d, p0/m, z24.d, z25.d
    fmla z16.d, p0/m, z24.d, z25.d
    fmla z17.d, p0/m, z24.d, z25.d
    fmla z18.d, p0/m, z24.d, z25.d
    fmla z19.d, p0/m, z24.d, z25.d
    fmla z20.d, p0/m, z24.d, z25.d
    fmla z21.d, p0/m, z24.d, z25.d
    fmla z22.d, p0/m, z24.d, z25.d
    fmla z23.d, p0/m, z24.d, z25.d
    subs x2, x2, #1
    b.ne .Lloop
