/* Quantize.h — the emission of the fused epilogue's NVFP4 re-quantization, shared by every
 * target's kernel: from 16 fp32 activations and the global scale, the E4M3 block scale and
 * the 16 packed E2M1 codes, with the exact fp32 operation order of docs/format.md
 * ("Re-quantization to NVFP4") and of the C reference nvfp4h_quant_block. Plain llvm-dialect
 * arithmetic (no target instruction), so the sm_100a, sm_90a, CPU and any later target's
 * kernels produce the same bits. */
#ifndef NVFP4_CONVERSION_QUANTIZE_H
#define NVFP4_CONVERSION_QUANTIZE_H

#include "KernelBuilder.h"

#define NVFP4_QUANT_BLOCK 16

/* The quantized block: `packed` (i64) holds the 16 codes, element 2i in the low nibble of
 * byte i (the FP4 nibble order: stored little-endian it is the row's 8 bytes); `scale` (i8)
 * the E4M3 scale byte. */
typedef struct Nvfp4QuantBlock {
  KbValue packed, scale;
} Nvfp4QuantBlock;

/* log2(e) rounded to fp32 (0x3FB8AA3B), the factor of SwiGLU's exp2 argument. */
#define NVFP4_LOG2E_F32 1.44269502162933349609375

/* silu(g) * u in fp32 (g and u already times alpha): t = g * -log2(e); e = exp2(t);
 * (g / (1 + e)) * u, exp2 through llvm.exp2 (each target's own: ex2.approx on NVPTX, libm's
 * exp2f on the host; the one step that is not bit-exact between targets). */
KbValue nvfp4EmitSwiglu(KbBuilder *b, KbValue g, KbValue u);
/* Quantizes x[0..15] (f32, all in this thread) with the global scale gs (f32). */
Nvfp4QuantBlock nvfp4EmitQuantBlock(KbBuilder *b, const KbValue *x, KbValue gs);

/* The two halves, for layouts where a block's 16 values are spread over lanes (swap-AB
 * epilogues, register fragments): the caller reduces amax = llvm.maximum of |x_i| (NaN-
 * propagating: kbFMaximum, across lanes with shuffles), then every lane encodes its values.
 * `scale` is the E4M3 byte (i8), `r` = gs / decoded scale (f32), `dead` (i1) true when the
 * decoded scale is 0 or NaN (every code +0). */
typedef struct Nvfp4QuantScale {
  KbValue scale, r, dead;
} Nvfp4QuantScale;
Nvfp4QuantScale nvfp4EmitQuantScale(KbBuilder *b, KbValue amax, KbValue gs);
/* The E2M1 code (i32, 0..15) of one value of the block. */
KbValue nvfp4EmitQuantCode(KbBuilder *b, KbValue x, const Nvfp4QuantScale *q);

#endif /* NVFP4_CONVERSION_QUANTIZE_H */
