# Corpus of instruction forms for tools/import-llvm-mca (GNU as, AT&T syntax).
#
# Shared libraries are compiled for baseline x86-64 and lack most vector and
# many scalar forms; this file lists them explicitly so the generated tables
# cover SSE..AVX-512, FMA, BMI, x87 and the scalar integer forms a timing
# model needs. It is assembled with `as --64` and decoded like any ELF text;
# only the form keys matter (register numbers and addresses are arbitrary).
# Never executed.

        .text
        .globl  corpus_vector
corpus_vector:

# ---------------------------------------------------------------- SSE (legacy)
        .irp op, addps, addpd, subps, subpd, mulps, mulpd, divps, divpd, minps, minpd, maxps, maxpd, sqrtps, sqrtpd, andps, andpd, andnps, andnpd, orps, orpd, xorps, xorpd, unpcklps, unpcklpd, unpckhps, unpckhpd, haddps, haddpd, hsubps, hsubpd, addsubps, addsubpd, rcpps, rsqrtps, cvtdq2ps, cvtps2dq, cvttps2dq, cvtpd2ps, cvtpd2dq, cvttpd2dq, movddup, movshdup, movsldup
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        .endr
        .irp op, cvtps2pd, cvtdq2pd
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        .endr
        .irp op, addss, addsd, subss, subsd, mulss, mulsd, divss, divsd, minss, minsd, maxss, maxsd, sqrtss, sqrtsd, cvtss2sd, cvtsd2ss, comiss, comisd, ucomiss, ucomisd, rcpss, rsqrtss
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        .endr
        .irp op, cmpps, cmppd, cmpss, cmpsd, shufps, shufpd, blendps, blendpd, roundps, roundpd, roundss, roundsd, dpps, dppd, pblendw, palignr, pshufd, pshuflw, pshufhw, mpsadbw, pclmulqdq, aeskeygenassist, pcmpistri, pcmpistrm, pcmpestri, pcmpestrm, insertps, sha1rnds4, gf2p8affineqb, gf2p8affineinvqb
        \op     $1, %xmm1, %xmm0
        \op     $1, (%rax), %xmm0
        .endr
        .irp op, paddb, paddw, paddd, paddq, psubb, psubw, psubd, psubq, paddsb, paddsw, paddusb, paddusw, psubsb, psubsw, psubusb, psubusw, pmullw, pmulhw, pmulhuw, pmulld, pmuludq, pmuldq, pmaddwd, pmaddubsw, pand, pandn, por, pxor, pcmpeqb, pcmpeqw, pcmpeqd, pcmpeqq, pcmpgtb, pcmpgtw, pcmpgtd, pcmpgtq, pshufb, punpcklbw, punpcklwd, punpckldq, punpcklqdq, punpckhbw, punpckhwd, punpckhdq, punpckhqdq, packsswb, packssdw, packuswb, packusdw, pminub, pminuw, pminud, pminsb, pminsw, pminsd, pmaxub, pmaxuw, pmaxud, pmaxsb, pmaxsw, pmaxsd, pavgb, pavgw, psadbw, psllw, pslld, psllq, psrlw, psrld, psrlq, psraw, psrad, pabsb, pabsw, pabsd, psignb, psignw, psignd, phaddw, phaddd, phaddsw, phsubw, phsubd, pmulhrsw, ptest, pmovzxbw, pmovzxbd, pmovzxbq, pmovzxwd, pmovzxwq, pmovzxdq, pmovsxbw, pmovsxbd, pmovsxbq, pmovsxwd, pmovsxwq, pmovsxdq, phminposuw, aesenc, aesenclast, aesdec, aesdeclast, aesimc, sha1msg1, sha1msg2, sha1nexte, sha256msg1, sha256msg2, gf2p8mulb
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        .endr
        .irp op, psllw, pslld, psllq, psrlw, psrld, psrlq, psraw, psrad, pslldq, psrldq
        \op     $3, %xmm0
        .endr
        .irp op, blendvps, blendvpd, pblendvb, sha256rnds2
        \op     %xmm0, %xmm1, %xmm2
        \op     %xmm0, (%rax), %xmm2
        .endr
        .irp op, movaps, movups, movapd, movupd, movdqa, movdqu, movss, movsd
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        \op     %xmm0, (%rax)
        .endr
        .irp op, movhps, movlps, movhpd, movlpd
        \op     (%rax), %xmm0
        \op     %xmm0, (%rax)
        .endr
        lddqu   (%rax), %xmm0
        movntdqa (%rax), %xmm0
        movntps %xmm0, (%rax)
        movntpd %xmm0, (%rax)
        movntdq %xmm0, (%rax)
        movnti  %eax, (%rbx)
        movnti  %rax, (%rbx)
        movhlps %xmm1, %xmm0
        movlhps %xmm1, %xmm0
        movmskps %xmm0, %eax
        movmskpd %xmm0, %eax
        pmovmskb %xmm0, %eax
        maskmovdqu %xmm1, %xmm0
        movd    %eax, %xmm0
        movd    %xmm0, %eax
        movd    (%rax), %xmm0
        movd    %xmm0, (%rax)
        movq    %rax, %xmm0
        movq    %xmm0, %rax
        movq    (%rax), %xmm0
        movq    %xmm0, (%rax)
        movq    %xmm1, %xmm0
        pextrb  $1, %xmm0, %eax
        pextrb  $1, %xmm0, (%rax)
        pextrw  $1, %xmm0, %eax
        pextrw  $1, %xmm0, (%rax)
        pextrd  $1, %xmm0, %eax
        pextrd  $1, %xmm0, (%rax)
        pextrq  $1, %xmm0, %rax
        pextrq  $1, %xmm0, (%rax)
        extractps $1, %xmm0, %eax
        extractps $1, %xmm0, (%rax)
        pinsrb  $1, %eax, %xmm0
        pinsrb  $1, (%rax), %xmm0
        pinsrw  $1, %eax, %xmm0
        pinsrw  $1, (%rax), %xmm0
        pinsrd  $1, %eax, %xmm0
        pinsrd  $1, (%rax), %xmm0
        pinsrq  $1, %rax, %xmm0
        pinsrq  $1, (%rax), %xmm0
        cvtsi2ss %eax, %xmm0
        cvtsi2ssl (%rax), %xmm0
        cvtsi2ss %rax, %xmm0
        cvtsi2ssq (%rax), %xmm0
        cvtsi2sd %eax, %xmm0
        cvtsi2sdl (%rax), %xmm0
        cvtsi2sd %rax, %xmm0
        cvtsi2sdq (%rax), %xmm0
        .irp op, cvtss2si, cvttss2si, cvtsd2si, cvttsd2si
        \op     %xmm0, %eax
        \op     %xmm0, %rax
        \op     (%rax), %eax
        \op     (%rax), %rax
        .endr
        crc32b  %bl, %eax
        crc32w  %bx, %eax
        crc32l  %ebx, %eax
        crc32q  %rbx, %rax
        crc32b  (%rbx), %eax
        crc32w  (%rbx), %eax
        crc32l  (%rbx), %eax
        crc32q  (%rbx), %rax
        ldmxcsr (%rax)
        stmxcsr (%rax)

# ---------------------------------------------------------------- MMX
        .irp op, paddb, paddw, paddd, paddq, psubb, psubd, pmullw, pmaddwd, pand, por, pxor, pcmpeqb, pcmpgtd, punpcklbw, packuswb, pavgb, psadbw, pshufb, pmaxub, psllq
        \op     %mm1, %mm0
        \op     (%rax), %mm0
        .endr
        psllq   $3, %mm0
        pshufw  $1, %mm1, %mm0
        movq    %mm1, %mm0
        movq    (%rax), %mm0
        movq    %mm0, (%rax)
        movd    %eax, %mm0
        movd    %mm0, %eax
        movq    %rax, %mm0
        movq    %mm0, %rax
        movq2dq %mm0, %xmm0
        movdq2q %xmm0, %mm0
        pmovmskb %mm0, %eax
        emms

# ---------------------------------------------------------------- AVX / AVX2 (VEX)
        .irp op, vaddps, vaddpd, vsubps, vsubpd, vmulps, vmulpd, vdivps, vdivpd, vminps, vmaxps, vminpd, vmaxpd, vandps, vandpd, vandnps, vandnpd, vorps, vorpd, vxorps, vxorpd, vunpcklps, vunpckhps, vunpcklpd, vunpckhpd, vhaddps, vhaddpd, vhsubps, vaddsubps, vaddsubpd, vpermilps, vpermilpd, vpaddb, vpaddw, vpaddd, vpaddq, vpsubb, vpsubw, vpsubd, vpsubq, vpaddsb, vpaddsw, vpaddusb, vpaddusw, vpsubsb, vpsubusb, vpmullw, vpmulhw, vpmulhuw, vpmulld, vpmuludq, vpmuldq, vpmaddwd, vpmaddubsw, vpand, vpandn, vpor, vpxor, vpcmpeqb, vpcmpeqw, vpcmpeqd, vpcmpeqq, vpcmpgtb, vpcmpgtw, vpcmpgtd, vpcmpgtq, vpshufb, vpunpcklbw, vpunpcklwd, vpunpckldq, vpunpcklqdq, vpunpckhbw, vpunpckhwd, vpunpckhdq, vpunpckhqdq, vpacksswb, vpackssdw, vpackuswb, vpackusdw, vpminub, vpminuw, vpminud, vpminsb, vpminsw, vpminsd, vpmaxub, vpmaxuw, vpmaxud, vpmaxsb, vpmaxsw, vpmaxsd, vpavgb, vpavgw, vpsadbw, vpsllvd, vpsllvq, vpsrlvd, vpsrlvq, vpsravd, vpsignb, vpsignd, vphaddw, vphaddd, vphsubd, vpmulhrsw, vaesenc, vaesenclast, vaesdec, vaesdeclast, vgf2p8mulb
        \op     %xmm1, %xmm2, %xmm3
        \op     (%rax), %xmm2, %xmm3
        \op     %ymm1, %ymm2, %ymm3
        \op     (%rax), %ymm2, %ymm3
        .endr
        .irp op, vpermd, vpermps
        \op     %ymm1, %ymm2, %ymm3
        \op     (%rax), %ymm2, %ymm3
        .endr
        .irp op, vpsllw, vpslld, vpsllq, vpsrlw, vpsrld, vpsrlq, vpsraw, vpsrad
        \op     %xmm1, %xmm2, %xmm3
        \op     (%rax), %xmm2, %xmm3
        \op     %xmm1, %ymm2, %ymm3
        \op     (%rax), %ymm2, %ymm3
        \op     $3, %xmm2, %xmm3
        \op     $3, %ymm2, %ymm3
        .endr
        .irp op, vpslldq, vpsrldq
        \op     $3, %xmm2, %xmm3
        \op     $3, %ymm2, %ymm3
        .endr
        .irp op, vaddss, vaddsd, vsubss, vsubsd, vmulss, vmulsd, vdivss, vdivsd, vminss, vminsd, vmaxss, vmaxsd, vsqrtss, vsqrtsd, vcvtss2sd, vcvtsd2ss, vrcpss, vrsqrtss, vunpcklps
        \op     %xmm1, %xmm2, %xmm3
        \op     (%rax), %xmm2, %xmm3
        .endr
        .irp op, vcomiss, vcomisd, vucomiss, vucomisd
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        .endr
        .irp op, vsqrtps, vsqrtpd, vrcpps, vrsqrtps, vcvtdq2ps, vcvtps2dq, vcvttps2dq, vmovaps, vmovups, vmovapd, vmovupd, vmovdqa, vmovdqu, vpabsb, vpabsw, vpabsd, vptest, vtestps, vtestpd, vmovddup, vmovshdup, vmovsldup
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        \op     %ymm1, %ymm0
        \op     (%rax), %ymm0
        .endr
        .irp op, vmovaps, vmovups, vmovapd, vmovupd, vmovdqa, vmovdqu, vmovntps, vmovntpd, vmovntdq
        \op     %xmm0, (%rax)
        \op     %ymm0, (%rax)
        .endr
        vmovntdqa (%rax), %xmm0
        vmovntdqa (%rax), %ymm0
        vlddqu  (%rax), %xmm0
        vlddqu  (%rax), %ymm0
        .irp op, vcvtps2pd, vcvtdq2pd, vcvtph2ps, vpmovzxbw, vpmovzxbd, vpmovzxbq, vpmovzxwd, vpmovzxwq, vpmovzxdq, vpmovsxbw, vpmovsxbd, vpmovsxbq, vpmovsxwd, vpmovsxwq, vpmovsxdq
        \op     %xmm1, %xmm0
        \op     (%rax), %xmm0
        \op     %xmm1, %ymm0
        \op     (%rax), %ymm0
        .endr
        vcvtpd2ps %xmm1, %xmm0
        vcvtpd2psx (%rax), %xmm0
        vcvtpd2ps %ymm1, %xmm0
        vcvtpd2psy (%rax), %xmm0
        vcvtpd2dq %ymm1, %xmm0
        vcvtpd2dqy (%rax), %xmm0
        vcvttpd2dq %xmm1, %xmm0
        vcvttpd2dq %ymm1, %xmm0
        vcvttpd2dqy (%rax), %xmm0
        vcvtps2ph $0, %xmm1, %xmm0
        vcvtps2ph $0, %ymm1, %xmm0
        vcvtps2ph $0, %ymm1, (%rax)
        .irp op, vshufps, vshufpd, vblendps, vblendpd, vpblendw, vpalignr, vcmpps, vcmppd, vdpps, vmpsadbw, vpblendd, vpclmulqdq, vgf2p8affineqb
        \op     $1, %xmm1, %xmm2, %xmm3
        \op     $1, (%rax), %xmm2, %xmm3
        \op     $1, %ymm1, %ymm2, %ymm3
        \op     $1, (%rax), %ymm2, %ymm3
        .endr
        .irp op, vcmpss, vcmpsd, vroundss, vroundsd, vinsertps, vdppd
        \op     $1, %xmm1, %xmm2, %xmm3
        \op     $1, (%rax), %xmm2, %xmm3
        .endr
        .irp op, vroundps, vroundpd, vpermilps, vpermilpd, vpshufd, vpshuflw, vpshufhw
        \op     $1, %xmm1, %xmm0
        \op     $1, (%rax), %xmm0
        \op     $1, %ymm1, %ymm0
        \op     $1, (%rax), %ymm0
        .endr
        .irp op, vpermq, vpermpd
        \op     $1, %ymm1, %ymm0
        \op     $1, (%rax), %ymm0
        .endr
        .irp op, vperm2f128, vperm2i128
        \op     $1, %ymm1, %ymm2, %ymm3
        \op     $1, (%rax), %ymm2, %ymm3
        .endr
        .irp op, vinsertf128, vinserti128
        \op     $1, %xmm1, %ymm2, %ymm3
        \op     $1, (%rax), %ymm2, %ymm3
        .endr
        .irp op, vextractf128, vextracti128
        \op     $1, %ymm1, %xmm0
        \op     $1, %ymm1, (%rax)
        .endr
        .irp op, vblendvps, vblendvpd, vpblendvb
        \op     %xmm4, %xmm1, %xmm2, %xmm3
        \op     %xmm4, (%rax), %xmm2, %xmm3
        \op     %ymm4, %ymm1, %ymm2, %ymm3
        \op     %ymm4, (%rax), %ymm2, %ymm3
        .endr
        vbroadcastss %xmm1, %xmm0
        vbroadcastss %xmm1, %ymm0
        vbroadcastss (%rax), %xmm0
        vbroadcastss (%rax), %ymm0
        vbroadcastsd %xmm1, %ymm0
        vbroadcastsd (%rax), %ymm0
        vbroadcastf128 (%rax), %ymm0
        vbroadcasti128 (%rax), %ymm0
        .irp op, vpbroadcastb, vpbroadcastw, vpbroadcastd, vpbroadcastq
        \op     %xmm1, %xmm0
        \op     %xmm1, %ymm0
        \op     (%rax), %xmm0
        \op     (%rax), %ymm0
        .endr
        .irp op, vmaskmovps, vmaskmovpd, vpmaskmovd, vpmaskmovq
        \op     (%rax), %xmm1, %xmm0
        \op     (%rax), %ymm1, %ymm0
        \op     %xmm0, %xmm1, (%rax)
        \op     %ymm0, %ymm1, (%rax)
        .endr
        vgatherdps %xmm2, (%rax,%xmm1,4), %xmm0
        vgatherdps %ymm2, (%rax,%ymm1,4), %ymm0
        vgatherqps %xmm2, (%rax,%xmm1,4), %xmm0
        vgatherqps %xmm2, (%rax,%ymm1,4), %xmm0
        vgatherdpd %xmm2, (%rax,%xmm1,8), %xmm0
        vgatherdpd %ymm2, (%rax,%xmm1,8), %ymm0
        vgatherqpd %xmm2, (%rax,%xmm1,8), %xmm0
        vgatherqpd %ymm2, (%rax,%ymm1,8), %ymm0
        vpgatherdd %xmm2, (%rax,%xmm1,4), %xmm0
        vpgatherdd %ymm2, (%rax,%ymm1,4), %ymm0
        vpgatherqd %xmm2, (%rax,%xmm1,4), %xmm0
        vpgatherqd %xmm2, (%rax,%ymm1,4), %xmm0
        vpgatherdq %xmm2, (%rax,%xmm1,8), %xmm0
        vpgatherdq %ymm2, (%rax,%xmm1,8), %ymm0
        vpgatherqq %xmm2, (%rax,%xmm1,8), %xmm0
        vpgatherqq %ymm2, (%rax,%ymm1,8), %ymm0
        vzeroupper
        vzeroall
        vmovmskps %xmm0, %eax
        vmovmskps %ymm0, %eax
        vmovmskpd %ymm0, %eax
        vpmovmskb %xmm0, %eax
        vpmovmskb %ymm0, %eax
        vmovd   %eax, %xmm0
        vmovd   %xmm0, %eax
        vmovd   (%rax), %xmm0
        vmovd   %xmm0, (%rax)
        vmovq   %rax, %xmm0
        vmovq   %xmm0, %rax
        vmovq   (%rax), %xmm0
        vmovq   %xmm0, (%rax)
        vmovq   %xmm1, %xmm0
        vmovss  (%rax), %xmm0
        vmovss  %xmm0, (%rax)
        vmovss  %xmm1, %xmm2, %xmm0
        vmovsd  (%rax), %xmm0
        vmovsd  %xmm0, (%rax)
        vmovsd  %xmm1, %xmm2, %xmm0
        vmovhps (%rax), %xmm1, %xmm0
        vmovhps %xmm0, (%rax)
        vmovlps (%rax), %xmm1, %xmm0
        vmovlps %xmm0, (%rax)
        vmovhpd (%rax), %xmm1, %xmm0
        vmovlpd (%rax), %xmm1, %xmm0
        vmovhlps %xmm1, %xmm2, %xmm0
        vmovlhps %xmm1, %xmm2, %xmm0
        vpextrb $1, %xmm0, %eax
        vpextrb $1, %xmm0, (%rax)
        vpextrw $1, %xmm0, %eax
        vpextrd $1, %xmm0, %eax
        vpextrd $1, %xmm0, (%rax)
        vpextrq $1, %xmm0, %rax
        vpextrq $1, %xmm0, (%rax)
        vextractps $1, %xmm0, %eax
        vpinsrb $1, %eax, %xmm1, %xmm0
        vpinsrb $1, (%rax), %xmm1, %xmm0
        vpinsrw $1, %eax, %xmm1, %xmm0
        vpinsrd $1, %eax, %xmm1, %xmm0
        vpinsrd $1, (%rax), %xmm1, %xmm0
        vpinsrq $1, %rax, %xmm1, %xmm0
        vpinsrq $1, (%rax), %xmm1, %xmm0
        vcvtsi2ss %eax, %xmm1, %xmm0
        vcvtsi2ss %rax, %xmm1, %xmm0
        vcvtsi2sd %eax, %xmm1, %xmm0
        vcvtsi2sd %rax, %xmm1, %xmm0
        vcvtsi2sdl (%rax), %xmm1, %xmm0
        vcvtsi2sdq (%rax), %xmm1, %xmm0
        .irp op, vcvtss2si, vcvttss2si, vcvtsd2si, vcvttsd2si
        \op     %xmm0, %eax
        \op     %xmm0, %rax
        \op     (%rax), %eax
        \op     (%rax), %rax
        .endr
        vldmxcsr (%rax)
        vstmxcsr (%rax)

# ---------------------------------------------------------------- FMA3
        .macro fma3 name
        \name\()ps %xmm1, %xmm2, %xmm3
        \name\()ps (%rax), %xmm2, %xmm3
        \name\()ps %ymm1, %ymm2, %ymm3
        \name\()ps (%rax), %ymm2, %ymm3
        \name\()ps %zmm1, %zmm2, %zmm3
        \name\()ps (%rax), %zmm2, %zmm3
        \name\()ps (%rax){1to16}, %zmm2, %zmm3
        \name\()pd %xmm1, %xmm2, %xmm3
        \name\()pd (%rax), %xmm2, %xmm3
        \name\()pd %ymm1, %ymm2, %ymm3
        \name\()pd (%rax), %ymm2, %ymm3
        \name\()pd %zmm1, %zmm2, %zmm3
        \name\()pd (%rax), %zmm2, %zmm3
        \name\()pd (%rax){1to8}, %zmm2, %zmm3
        \name\()ss %xmm1, %xmm2, %xmm3
        \name\()ss (%rax), %xmm2, %xmm3
        \name\()sd %xmm1, %xmm2, %xmm3
        \name\()sd (%rax), %xmm2, %xmm3
        .endm
        .macro fma3as name
        \name\()ps %xmm1, %xmm2, %xmm3
        \name\()ps %ymm1, %ymm2, %ymm3
        \name\()ps (%rax), %ymm2, %ymm3
        \name\()ps %zmm1, %zmm2, %zmm3
        \name\()pd %ymm1, %ymm2, %ymm3
        \name\()pd %zmm1, %zmm2, %zmm3
        .endm
        .irp op, vfmadd132, vfmadd213, vfmadd231, vfmsub132, vfmsub213, vfmsub231, vfnmadd132, vfnmadd213, vfnmadd231, vfnmsub132, vfnmsub213, vfnmsub231
        fma3    \op
        .endr
        .irp op, vfmaddsub132, vfmaddsub213, vfmaddsub231, vfmsubadd132, vfmsubadd213, vfmsubadd231
        fma3as  \op
        .endr

# ---------------------------------------------------------------- AVX-512 (EVEX)
        # Packed single / dword: xmm16+ forces EVEX for the 128/256-bit forms.
        .irp op, vaddps, vsubps, vmulps, vdivps, vminps, vmaxps, vandps, vandnps, vorps, vxorps, vunpcklps, vunpckhps, vpermilps, vscalefps, vpaddd, vpsubd, vpmulld, vpminsd, vpmaxsd, vpminud, vpmaxud, vpandd, vpandnd, vpord, vpxord, vpunpckldq, vpunpckhdq, vpsllvd, vpsrlvd, vpsravd, vprolvd, vprorvd, vpermt2ps, vpermt2d, vpermi2ps, vpermi2d, vpackssdw, vpackusdw
        \op     %zmm1, %zmm2, %zmm3
        \op     (%rax), %zmm2, %zmm3
        \op     (%rax){1to16}, %zmm2, %zmm3
        \op     %ymm17, %ymm18, %ymm19
        \op     %xmm17, %xmm18, %xmm19
        .endr
        .irp op, vaddpd, vsubpd, vmulpd, vdivpd, vminpd, vmaxpd, vandpd, vandnpd, vorpd, vxorpd, vunpcklpd, vunpckhpd, vpermilpd, vscalefpd, vpaddq, vpsubq, vpmullq, vpminsq, vpmaxsq, vpminuq, vpmaxuq, vpandq, vpandnq, vporq, vpxorq, vpunpcklqdq, vpunpckhqdq, vpsllvq, vpsrlvq, vpsravq, vprolvq, vprorvq, vpermt2pd, vpermt2q, vpermi2pd, vpermi2q, vpermpd, vpermq, vpmadd52luq, vpmadd52huq, vpmuludq, vpmuldq
        \op     %zmm1, %zmm2, %zmm3
        \op     (%rax), %zmm2, %zmm3
        \op     (%rax){1to8}, %zmm2, %zmm3
        \op     %ymm17, %ymm18, %ymm19
        .endr
        vpermps %zmm1, %zmm2, %zmm3
        vpermps (%rax), %zmm2, %zmm3
        vpermd  %zmm1, %zmm2, %zmm3
        vpermd  (%rax), %zmm2, %zmm3
        .irp op, vpaddb, vpaddw, vpsubb, vpsubw, vpaddsb, vpaddusb, vpaddsw, vpsubusb, vpmullw, vpmulhw, vpmulhuw, vpmulhrsw, vpmaddwd, vpmaddubsw, vpshufb, vpavgb, vpavgw, vpsadbw, vpminub, vpmaxub, vpminsw, vpmaxsw, vpminuw, vpminsb, vpunpcklbw, vpunpckhbw, vpunpcklwd, vpunpckhwd, vpacksswb, vpackuswb, vpsllvw, vpsrlvw, vpsravw, vpermw, vpermb, vpermt2w, vpermt2b, vpermi2b, vpmultishiftqb, vpdpbusd, vpdpbusds, vpdpwssd, vpdpwssds, vgf2p8mulb, vaesenc, vaesenclast, vaesdec, vaesdeclast, vdpbf16ps, vcvtne2ps2bf16, vpshldvd, vpshldvq, vpshrdvd, vpshldvw
        \op     %zmm1, %zmm2, %zmm3
        \op     (%rax), %zmm2, %zmm3
        .endr
        .irp op, vpaddb, vpmullw, vpshufb, vpermw, vpermb, vpdpbusd, vpdpwssd, vpsllvw, vpermt2b
        \op     %ymm17, %ymm18, %ymm19
        \op     %xmm17, %xmm18, %xmm19
        .endr
        .irp op, vpsllw, vpslld, vpsllq, vpsrlw, vpsrld, vpsrlq, vpsraw, vpsrad, vpsraq
        \op     %xmm1, %zmm2, %zmm3
        \op     (%rax), %zmm2, %zmm3
        \op     $3, %zmm2, %zmm3
        \op     $3, (%rax), %zmm3
        .endr
        vpsraq  %xmm17, %xmm18, %xmm19
        vpsraq  $3, %xmm18, %xmm19
        vpsraq  $3, %ymm18, %ymm19
        vpslldq $3, %zmm2, %zmm3
        vpsrldq $3, %zmm2, %zmm3
        .irp op, vprold, vprord, vprolq, vprorq, vpshufd, vpermilps, vpermilpd, vpermq, vpermpd, vrndscaleps, vrndscalepd, vgetmantps, vgetmantpd, vreduceps, vreducepd
        \op     $1, %zmm1, %zmm0
        \op     $1, (%rax), %zmm0
        \op     $1, %ymm17, %ymm16
        .endr
        vpshuflw $1, %zmm1, %zmm0
        vpshufhw $1, %zmm1, %zmm0
        .irp op, vpternlogd, vpternlogq, valignd, valignq, vshufps, vshufpd, vshuff32x4, vshuff64x2, vshufi32x4, vshufi64x2, vrangeps, vrangepd, vfixupimmps, vfixupimmpd, vpalignr, vdbpsadbw, vpshldd, vpshldq, vpshrdd, vpshrdq, vpshldw, vgf2p8affineqb, vgf2p8affineinvqb, vpclmulqdq
        \op     $1, %zmm1, %zmm2, %zmm3
        \op     $1, (%rax), %zmm2, %zmm3
        .endr
        .irp op, vpternlogd, vpternlogq, valignd, valignq, vrangeps, vfixupimmps, vpshldd, vshufi32x4
        \op     $1, %ymm17, %ymm18, %ymm19
        .endr
        .irp op, vpternlogd, vpternlogq, valignd, vrangeps, vfixupimmps, vpshldd
        \op     $1, %xmm17, %xmm18, %xmm19
        .endr
        .irp op, vsqrtps, vsqrtpd, vrcp14ps, vrcp14pd, vrsqrt14ps, vrsqrt14pd, vgetexpps, vgetexppd, vcvtdq2ps, vcvtps2dq, vcvttps2dq, vcvtudq2ps, vcvtps2udq, vcvttps2udq, vcvtqq2pd, vcvtpd2qq, vcvttpd2qq, vcvtuqq2pd, vcvtpd2uqq, vpabsb, vpabsw, vpabsd, vpabsq, vplzcntd, vplzcntq, vpconflictd, vpconflictq, vpopcntd, vpopcntq, vpopcntb, vpopcntw, vmovaps, vmovups, vmovapd, vmovupd, vmovdqa32, vmovdqa64, vmovdqu8, vmovdqu16, vmovdqu32, vmovdqu64, vmovddup, vmovshdup, vmovsldup
        \op     %zmm1, %zmm0
        \op     (%rax), %zmm0
        \op     %ymm17, %ymm16
        \op     %xmm17, %xmm16
        .endr
        .irp op, vmovaps, vmovups, vmovapd, vmovupd, vmovdqa32, vmovdqa64, vmovdqu8, vmovdqu16, vmovdqu32, vmovdqu64, vmovntps, vmovntpd, vmovntdq
        \op     %zmm0, (%rax)
        .endr
        vmovntdqa (%rax), %zmm0
        vmovups %zmm0, %zmm1{%k1}
        vmovups %zmm0, (%rax){%k1}
        vmovdqu8 %zmm0, (%rax){%k1}
        .irp op, vcvtps2pd, vcvtdq2pd, vcvtudq2pd, vcvtps2qq, vcvttps2qq, vcvtph2ps, vpmovzxbw, vpmovzxwd, vpmovzxdq, vpmovsxbw, vpmovsxwd, vpmovsxdq
        \op     %ymm1, %zmm0
        \op     (%rax), %zmm0
        .endr
        .irp op, vpmovzxbd, vpmovzxwq, vpmovsxbd, vpmovsxwq
        \op     %xmm1, %zmm0
        \op     (%rax), %zmm0
        .endr
        .irp op, vcvtpd2ps, vcvtpd2dq, vcvttpd2dq, vcvtpd2udq, vcvtqq2ps, vcvtuqq2ps, vpmovdw, vpmovsdw, vpmovusdw, vpmovqd, vpmovsqd, vpmovwb, vpmovswb, vpmovuswb
        \op     %zmm1, %ymm0
        .endr
        .irp op, vpmovdb, vpmovsdb, vpmovqw, vpmovqb
        \op     %zmm1, %xmm0
        .endr
        vpmovdw %zmm1, (%rax)
        vpmovqd %zmm1, (%rax)
        vpmovwb %zmm1, (%rax)
        vpmovdb %zmm1, (%rax)
        vcvtneps2bf16 %zmm1, %ymm0
        vcvtps2ph $0, %zmm1, %ymm0
        vcvtps2ph $0, %zmm1, (%rax)
        .irp op, vaddss, vaddsd, vmulss, vmulsd, vdivss, vdivsd, vsqrtss, vsqrtsd, vscalefss, vscalefsd, vrcp14ss, vrcp14sd, vrsqrt14ss, vrsqrt14sd, vgetexpss, vgetexpsd
        \op     %xmm17, %xmm18, %xmm19
        \op     (%rax), %xmm18, %xmm19
        .endr
        vcvtusi2sd %rax, %xmm1, %xmm0
        vcvtusi2ss %eax, %xmm1, %xmm0
        vcvtsd2usi %xmm0, %rax
        vcvttsd2usi %xmm0, %rax
        vcvtss2usi %xmm0, %eax
        vbroadcastss %xmm1, %zmm0
        vbroadcastss (%rax), %zmm0
        vbroadcastsd %xmm1, %zmm0
        vbroadcastsd (%rax), %zmm0
        vbroadcastf32x4 (%rax), %zmm0
        vbroadcastf64x4 (%rax), %zmm0
        vbroadcasti32x4 (%rax), %zmm0
        vbroadcasti64x4 (%rax), %zmm0
        vbroadcasti32x8 (%rax), %zmm0
        vbroadcastf32x2 %xmm1, %zmm0
        vbroadcasti32x2 %xmm1, %zmm0
        .irp op, vpbroadcastb, vpbroadcastw, vpbroadcastd, vpbroadcastq
        \op     %xmm1, %zmm0
        \op     (%rax), %zmm0
        .endr
        vpbroadcastb %eax, %zmm0
        vpbroadcastw %eax, %zmm0
        vpbroadcastd %eax, %zmm0
        vpbroadcastq %rax, %zmm0
        vpbroadcastd %eax, %ymm16
        vpbroadcastq %rax, %xmm16
        vpbroadcastmw2d %k1, %zmm0
        vpbroadcastmb2q %k1, %zmm0
        .irp op, vinsertf32x4, vinserti32x4, vinsertf64x2, vinserti64x2
        \op     $1, %xmm1, %zmm2, %zmm3
        \op     $1, (%rax), %zmm2, %zmm3
        .endr
        .irp op, vinsertf64x4, vinserti64x4, vinsertf32x8, vinserti32x8
        \op     $1, %ymm1, %zmm2, %zmm3
        \op     $1, (%rax), %zmm2, %zmm3
        .endr
        vinserti32x4 $1, %xmm17, %ymm18, %ymm19
        .irp op, vextractf32x4, vextracti32x4, vextractf64x2, vextracti64x2
        \op     $1, %zmm1, %xmm0
        \op     $1, %zmm1, (%rax)
        .endr
        .irp op, vextractf64x4, vextracti64x4, vextractf32x8, vextracti32x8
        \op     $1, %zmm1, %ymm0
        \op     $1, %zmm1, (%rax)
        .endr
        vextracti32x4 $1, %ymm17, %xmm16
        vextractps $1, %xmm17, %eax
        vpextrd $1, %xmm17, %eax
        vpinsrd $1, %eax, %xmm17, %xmm16
        vmovd   %eax, %xmm16
        vmovq   %rax, %xmm16
        vmovq   %xmm16, %rax
        .irp op, vcompressps, vcompresspd, vpcompressd, vpcompressq, vpcompressb, vpcompressw
        \op     %zmm1, %zmm0{%k1}
        \op     %zmm1, (%rax){%k1}
        \op     %ymm17, %ymm16{%k1}
        .endr
        .irp op, vexpandps, vexpandpd, vpexpandd, vpexpandq, vpexpandb, vpexpandw
        \op     %zmm1, %zmm0{%k1}
        \op     (%rax), %zmm0{%k1}
        .endr
        vgatherdps (%rax,%zmm1,4), %zmm0{%k1}
        vgatherdpd (%rax,%ymm1,8), %zmm0{%k1}
        vgatherqps (%rax,%zmm1,4), %ymm0{%k1}
        vgatherqpd (%rax,%zmm1,8), %zmm0{%k1}
        vpgatherdd (%rax,%zmm1,4), %zmm0{%k1}
        vpgatherdq (%rax,%ymm1,8), %zmm0{%k1}
        vpgatherqd (%rax,%zmm1,4), %ymm0{%k1}
        vpgatherqq (%rax,%zmm1,8), %zmm0{%k1}
        vgatherdps (%rax,%ymm17,4), %ymm16{%k1}
        vpgatherdd (%rax,%xmm17,4), %xmm16{%k1}
        vscatterdps %zmm0, (%rax,%zmm1,4){%k1}
        vscatterdpd %zmm0, (%rax,%ymm1,8){%k1}
        vscatterqps %ymm0, (%rax,%zmm1,4){%k1}
        vscatterqpd %zmm0, (%rax,%zmm1,8){%k1}
        vpscatterdd %zmm0, (%rax,%zmm1,4){%k1}
        vpscatterdq %zmm0, (%rax,%ymm1,8){%k1}
        vpscatterqd %ymm0, (%rax,%zmm1,4){%k1}
        vpscatterqq %zmm0, (%rax,%zmm1,8){%k1}
        vpscatterdd %ymm16, (%rax,%ymm17,4){%k1}
        .irp op, vpcmpeqb, vpcmpeqw, vpcmpeqd, vpcmpeqq, vpcmpgtb, vpcmpgtw, vpcmpgtd, vpcmpgtq, vptestmb, vptestmd, vptestmq, vptestnmb, vptestnmd
        \op     %zmm1, %zmm2, %k1
        \op     (%rax), %zmm2, %k1
        \op     %ymm17, %ymm18, %k1
        \op     %xmm17, %xmm18, %k1
        .endr
        .irp op, vpcmpb, vpcmpub, vpcmpw, vpcmpuw, vpcmpd, vpcmpud, vpcmpq, vpcmpuq, vcmpps, vcmppd
        \op     $1, %zmm1, %zmm2, %k1
        \op     $1, (%rax), %zmm2, %k1
        \op     $1, %ymm17, %ymm18, %k1
        \op     $1, %xmm17, %xmm18, %k1
        .endr
        vcmpss  $1, %xmm17, %xmm18, %k1
        vcmpsd  $1, %xmm17, %xmm18, %k1
        vfpclassps $1, %zmm1, %k1
        vfpclasspd $1, %zmm1, %k1
        vfpclassss $1, %xmm1, %k1
        .irp op, vpmovm2b, vpmovm2w, vpmovm2d, vpmovm2q
        \op     %k1, %zmm0
        \op     %k1, %ymm16
        \op     %k1, %xmm16
        .endr
        .irp op, vpmovb2m, vpmovw2m, vpmovd2m, vpmovq2m
        \op     %zmm0, %k1
        \op     %ymm16, %k1
        \op     %xmm16, %k1
        .endr
        vpshufbitqmb %zmm1, %zmm2, %k1
        vpmovmskb %ymm0, %eax

# ---------------------------------------------------------------- mask registers
        .irp s, b, w, d, q
        kmov\s  %k1, %k2
        kmov\s  (%rax), %k1
        kmov\s  %k1, (%rax)
        kand\s  %k1, %k2, %k3
        kandn\s %k1, %k2, %k3
        kor\s   %k1, %k2, %k3
        kxor\s  %k1, %k2, %k3
        kxnor\s %k1, %k2, %k3
        knot\s  %k1, %k2
        kortest\s %k1, %k2
        ktest\s %k1, %k2
        kshiftl\s $1, %k1, %k2
        kshiftr\s $1, %k1, %k2
        kadd\s  %k1, %k2, %k3
        .endr
        kmovb   %eax, %k1
        kmovw   %eax, %k1
        kmovd   %eax, %k1
        kmovq   %rax, %k1
        kmovb   %k1, %eax
        kmovw   %k1, %eax
        kmovd   %k1, %eax
        kmovq   %k1, %rax
        kunpckbw %k1, %k2, %k3
        kunpckwd %k1, %k2, %k3
        kunpckdq %k1, %k2, %k3

# ---------------------------------------------------------------- scalar integer
        .macro alu2 op
        \op\()b %bl, %al
        \op\()w %bx, %ax
        \op\()l %ebx, %eax
        \op\()q %rbx, %rax
        \op\()b (%rsi), %al
        \op\()w (%rsi), %ax
        \op\()l (%rsi), %eax
        \op\()q (%rsi), %rax
        \op\()b %al, (%rsi)
        \op\()w %ax, (%rsi)
        \op\()l %eax, (%rsi)
        \op\()q %rax, (%rsi)
        \op\()b $1, %bl
        \op\()w $1, %bx
        \op\()l $1, %ebx
        \op\()q $1, %rbx
        \op\()w $1000, %bx
        \op\()l $100000, %ebx
        \op\()q $100000, %rbx
        \op\()b $1, (%rsi)
        \op\()w $1, (%rsi)
        \op\()l $1, (%rsi)
        \op\()q $1, (%rsi)
        .endm
        .irp op, add, sub, and, or, xor, adc, sbb, cmp, mov
        alu2    \op
        .endr
        lock addl %eax, (%rsi)
        .irp op, test
        testb   %bl, %al
        testw   %bx, %ax
        testl   %ebx, %eax
        testq   %rbx, %rax
        testb   %al, (%rsi)
        testw   %ax, (%rsi)
        testl   %eax, (%rsi)
        testq   %rax, (%rsi)
        testb   $1, %bl
        testw   $1, %bx
        testl   $1, %ebx
        testq   $1, %rbx
        testb   $1, (%rsi)
        testl   $1, (%rsi)
        testq   $1, (%rsi)
        .endr
        movabsq $0x123456789abcdef, %rax
        .irp op, inc, dec, neg, not, mul, imul, div, idiv
        \op\()b %bl
        \op\()w %bx
        \op\()l %ebx
        \op\()q %rbx
        \op\()b (%rsi)
        \op\()w (%rsi)
        \op\()l (%rsi)
        \op\()q (%rsi)
        .endr
        imulw   %bx, %ax
        imull   %ebx, %eax
        imulq   %rbx, %rax
        imulw   (%rsi), %ax
        imull   (%rsi), %eax
        imulq   (%rsi), %rax
        imulw   $3, %bx, %ax
        imull   $3, %ebx, %eax
        imulq   $3, %rbx, %rax
        imull   $1000, %ebx, %eax
        imulw   $3, (%rsi), %ax
        imull   $3, (%rsi), %eax
        imulq   $3, (%rsi), %rax
        .irp op, shl, shr, sar, rol, ror, rcl, rcr
        \op\()b %bl
        \op\()w %bx
        \op\()l %ebx
        \op\()q %rbx
        \op\()b $3, %bl
        \op\()w $3, %bx
        \op\()l $3, %ebx
        \op\()q $3, %rbx
        \op\()b %cl, %bl
        \op\()w %cl, %bx
        \op\()l %cl, %ebx
        \op\()q %cl, %rbx
        \op\()b (%rsi)
        \op\()l (%rsi)
        \op\()q (%rsi)
        \op\()l $3, (%rsi)
        \op\()q $3, (%rsi)
        \op\()l %cl, (%rsi)
        \op\()q %cl, (%rsi)
        .endr
        .irp op, shld, shrd
        \op\()w $3, %bx, %ax
        \op\()l $3, %ebx, %eax
        \op\()q $3, %rbx, %rax
        \op\()w %cl, %bx, %ax
        \op\()l %cl, %ebx, %eax
        \op\()q %cl, %rbx, %rax
        \op\()l $3, %ebx, (%rsi)
        \op\()q $3, %rbx, (%rsi)
        \op\()q %cl, %rbx, (%rsi)
        .endr
        .irp op, bsf, bsr, lzcnt, tzcnt, popcnt
        \op\()w %bx, %ax
        \op\()l %ebx, %eax
        \op\()q %rbx, %rax
        \op\()w (%rsi), %ax
        \op\()l (%rsi), %eax
        \op\()q (%rsi), %rax
        .endr
        .irp op, bt, bts, btr, btc
        \op\()w %bx, %ax
        \op\()l %ebx, %eax
        \op\()q %rbx, %rax
        \op\()w $3, %ax
        \op\()l $3, %eax
        \op\()q $3, %rax
        \op\()l $3, (%rsi)
        \op\()q $3, (%rsi)
        \op\()l %ebx, (%rsi)
        \op\()q %rbx, (%rsi)
        .endr
        .irp cc, o, no, b, ae, e, ne, be, a, s, ns, p, np, l, ge, le, g
        cmov\cc\()w %bx, %ax
        cmov\cc\()l %ebx, %eax
        cmov\cc\()q %rbx, %rax
        cmov\cc\()l (%rsi), %eax
        cmov\cc\()q (%rsi), %rax
        set\cc  %al
        set\cc  (%rsi)
        j\cc    .Lcorpus_target
        .endr
        jmp     .Lcorpus_target
        jmp     *%rax
        jmp     *(%rax)
        call    .Lcorpus_target
        call    *%rax
        call    *(%rax)
        ret
        ret     $8
        xchgb   %bl, %al
        xchgw   %bx, %ax
        xchgl   %ebx, %ecx
        xchgq   %rbx, %rcx
        xchgb   %al, (%rsi)
        xchgw   %ax, (%rsi)
        xchgl   %eax, (%rsi)
        xchgq   %rax, (%rsi)
        .irp op, xadd, cmpxchg
        \op\()b %bl, %al
        \op\()w %bx, %ax
        \op\()l %ebx, %ecx
        \op\()q %rbx, %rcx
        \op\()b %al, (%rsi)
        \op\()w %ax, (%rsi)
        \op\()l %eax, (%rsi)
        \op\()q %rax, (%rsi)
        .endr
        cmpxchg8b (%rsi)
        cmpxchg16b (%rsi)
        leaw    8(%rax), %bx
        leal    8(%rax), %ebx
        leaq    8(%rax), %rbx
        leaq    (%rax,%rcx), %rbx
        leaq    8(%rax,%rcx,4), %rbx
        leaq    (,%rcx,8), %rbx
        pushq   %rax
        pushq   (%rax)
        pushq   $1
        pushq   $100000
        pushw   %ax
        popq    %rax
        popq    (%rax)
        popw    %ax
        pushfq
        popfq
        leave
        enter   $16, $0
        movsbw  %al, %bx
        movsbl  %al, %ebx
        movsbq  %al, %rbx
        movswl  %ax, %ebx
        movswq  %ax, %rbx
        movslq  %eax, %rbx
        movzbw  %al, %bx
        movzbl  %al, %ebx
        movzbq  %al, %rbx
        movzwl  %ax, %ebx
        movzwq  %ax, %rbx
        movsbw  (%rsi), %bx
        movsbl  (%rsi), %ebx
        movsbq  (%rsi), %rbx
        movswl  (%rsi), %ebx
        movswq  (%rsi), %rbx
        movslq  (%rsi), %rbx
        movzbw  (%rsi), %bx
        movzbl  (%rsi), %ebx
        movzbq  (%rsi), %rbx
        movzwl  (%rsi), %ebx
        movzwq  (%rsi), %rbx
        movw    %ds, %ax
        cbtw
        cwtl
        cltq
        cwtd
        cltd
        cqto
        sahf
        lahf
        clc
        stc
        cmc
        cld
        std
        bswapl  %eax
        bswapq  %rax
        movbel  (%rsi), %eax
        movbeq  (%rsi), %rax
        movbel  %eax, (%rsi)
        movbeq  %rax, (%rsi)
        movbew  (%rsi), %ax
        .irp op, andn, bzhi, sarx, shlx, shrx, bextr, pdep, pext, mulx
        \op     %ebx, %ecx, %eax
        \op     %rbx, %rcx, %rax
        .endr
        andnl   (%rsi), %ecx, %eax
        andnq   (%rsi), %rcx, %rax
        shlxq   %rbx, (%rsi), %rax
        sarxq   %rbx, (%rsi), %rax
        shrxl   %ebx, (%rsi), %eax
        bextrq  %rbx, (%rsi), %rax
        bzhiq   %rbx, (%rsi), %rax
        pdepq   (%rsi), %rcx, %rax
        pextq   (%rsi), %rcx, %rax
        mulxq   (%rsi), %rcx, %rax
        .irp op, blsi, blsmsk, blsr
        \op     %ebx, %eax
        \op     %rbx, %rax
        \op\()q (%rsi), %rax
        .endr
        rorxl   $3, %ebx, %eax
        rorxq   $3, %rbx, %rax
        rorxq   $3, (%rsi), %rax
        adcxl   %ebx, %eax
        adcxq   %rbx, %rax
        adoxl   %ebx, %eax
        adoxq   %rbx, %rax
        adcxq   (%rsi), %rax
        adoxq   (%rsi), %rax
        .irp op, movsb, movsw, movsl, movsq, stosb, stosw, stosl, stosq, lodsb, lodsq, scasb, scasq, cmpsb, cmpsq
        \op
        .endr
        rep movsb
        rep stosq
        nop
        nopw    %ax
        nopl    (%rax)
        nopw    8(%rax,%rax,1)
        nopl    8(%rax,%rax,1)
        pause
        lfence
        mfence
        sfence
        rdtsc
        rdtscp
        rdpmc
        cpuid
        xgetbv
        prefetcht0 (%rax)
        prefetcht1 (%rax)
        prefetcht2 (%rax)
        prefetchnta (%rax)
        prefetchw (%rax)
        clflush (%rax)
        clflushopt (%rax)
        clwb    (%rax)
        rdrand  %eax
        rdrand  %rax
        rdseed  %rax
        int3
        ud2
        syscall
        endbr64
        xlatb

# ---------------------------------------------------------------- x87
        fld     %st(1)
        flds    (%rax)
        fldl    (%rax)
        fldt    (%rax)
        fst     %st(1)
        fsts    (%rax)
        fstl    (%rax)
        fstp    %st(1)
        fstps   (%rax)
        fstpl   (%rax)
        fstpt   (%rax)
        filds   (%rax)
        fildl   (%rax)
        fildll  (%rax)
        fists   (%rax)
        fistl   (%rax)
        fistps  (%rax)
        fistpl  (%rax)
        fistpll (%rax)
        fisttps (%rax)
        fisttpl (%rax)
        fisttpll (%rax)
        .irp op, fadd, fsub, fsubr, fmul, fdiv, fdivr
        \op     %st(1), %st
        \op     %st, %st(1)
        \op\()p %st, %st(1)
        \op\()s (%rax)
        \op\()l (%rax)
        .endr
        .irp op, fiadd, fisub, fimul, fidiv
        \op\()l (%rax)
        \op\()s (%rax)
        .endr
        fsqrt
        fabs
        fchs
        fxch    %st(1)
        fcomi   %st(1), %st
        fucomi  %st(1), %st
        fcomip  %st(1), %st
        fucomip %st(1), %st
        fcom    %st(1)
        fcoms   (%rax)
        fcoml   (%rax)
        fcomp   %st(1)
        fcompp
        fucom   %st(1)
        fucomp  %st(1)
        fucompp
        ftst
        fxam
        .irp cc, b, e, be, u, nb, ne, nbe, nu
        fcmov\cc %st(1), %st
        .endr
        fldz
        fld1
        fldpi
        fldl2e
        fldln2
        fnstsw  %ax
        fnstsw  (%rax)
        fnstcw  (%rax)
        fldcw   (%rax)
        fnstenv (%rax)
        fldenv  (%rax)
        fprem
        fprem1
        fsin
        fcos
        fsincos
        fptan
        fpatan
        f2xm1
        fyl2x
        fyl2xp1
        frndint
        fscale
        fxtract
        fninit
        fnclex
        ffree   %st(1)
        fincstp
        fdecstp
        fwait

        jrcxz   .Lcorpus_target
        jecxz   .Lcorpus_target
        loop    .Lcorpus_target
        loope   .Lcorpus_target
.Lcorpus_target:
        ret
