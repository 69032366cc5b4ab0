/* The exponentials of the attention kernels' score rows, on AVX-512 or AVX2.
 *
 * rf_exp_row (vecmath.h) is written for any ISA with the same rounding
 * everywhere, so it has no FMA and builds 2^n from integer bits: about 30
 * vector operations per 16 floats, and 10% of a BLRP training step (the
 * online softmax's row exponentials and backward's recomputation of P).
 * Here the same e^x = 2^n e^r, |r| <= ln(2)/2, and the same degree-6
 * polynomial run as FMAs with 2^n applied by vscalefps (on AVX2, two
 * multiplications by powers of two): about 12 operations. The attention kernels already differ between ISAs (their
 * score products run on AVX-512 FMAs or on the BLAS), so nothing that must
 * match across CPUs goes through this.
 */
#ifndef RF_CPU_EXP_ROW_H
#define RF_CPU_EXP_ROW_H

/* p[j] = e^(p[j] - shift) for j < n and a finite shift (-inf entries become
 * 0, results below about e^-87 too, as rf_expf gives); returns their sum.
 * Relative error below 3e-7 against e^x. On a CPU with AVX2 and FMA but
 * not AVX-512 it runs the same steps 8 floats at a time (exp8.h), on
 * older ones it is rf_exp_row. */
float rf_attn_exp_row(float *p, int n, float shift);

/* The same with rf_exp16_coarse's e^x (relative error below 1e-4) on
 * AVX-512, for the bf16 attention kernels; rf_attn_exp_row elsewhere. */
float rf_attn_exp_row_coarse(float *p, int n, float shift);

#endif
