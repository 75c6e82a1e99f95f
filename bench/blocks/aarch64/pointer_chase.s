// pointer chase (V2 SWOG: load-to-use 4 for a GPR load)
.Lloop:
    ldr x0, [x0]
    subs x2, x2, #1
    b.ne .Lloop
