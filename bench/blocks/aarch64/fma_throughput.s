// 24 independent FMLA: the four FP/ASIMD pipes V0-V3 (24 / 4 = 6)
.Lloop:
    fmla v0.2d, v24.2d, v25.2d
    fmla v1.2d, v24.2d, v25.2d
    fmla v2.2d, v24.2d, v25.2d
    fmla v3.2d, v24.2d, v25.2d
    fmla v4.2d, v24.2d, v25.2d
    fmla v5.2d, v24.2d, v25.2d
    fmla v6.2d, v24.2d, v25.2d
    fmla v7.2d, v24.2d, v25.2d
    fmla v8.2d, v24.2d, v25.2d
    fmla v9.2d, v24.2d, v25.2d
    fmla v10.2d, v24.2d, v25.2d
    fmla v11.2d, v24.2d, v25.2d
    fmla v12.2d, v24.2d, v25.2d
    fmla v13.2d, v24.2d, v25.2d
    fmla v14.2d, v24.2d, v25.2d
    fmla v15.2d, v24.2d, v25.2d
    fmla v16.2d, v24.2d, v25.2d
    fmla v17.2d, v24.2d, v25.2d
    fmla v18.2d, v24.2d, v25.2d
    fmla v19.2d, v24.2d, v25.2d
    fmla v20.2d, v24.2d, v25.2d
    fmla v21.2d, v24.2d, v25.2d
    fmla v22.2d, v24.2d, v25.2d
    fmla v23.2d, v24.2d, v25.2d
    subs x2, x2, #1
    b.ne .Lloop
