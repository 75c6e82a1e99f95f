// integer add chain of four (ALU latency 1)
.Lloop:
    add x0, x0, x1
    add x0, x0, x1
    add x0, x0, x1
    add x0, x0, x1
    subs x2, x2, #1
    b.ne .Lloop
