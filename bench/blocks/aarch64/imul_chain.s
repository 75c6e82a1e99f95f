// multiply chain (V2 SWOG: MUL X-form latency 2)
.Lloop:
    mul x0, x0, x1
    subs x2, x2, #1
    b.ne .Lloop
