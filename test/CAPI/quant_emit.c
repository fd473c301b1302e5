/* quant_emit.c — test of the fused epilogue's shared quantizer emission
 * (lib/Conversion/Quantize.h): emits two llvm.func through the kernel builder
 * (nvfp4_test_quant16: 16 floats and gs -> 8 packed bytes and the scale byte;
 * nvfp4_test_swiglu: g, u -> silu(g) * u), which lit compiles for the host with
 * mlir-translate and clang, then checks every output bit for bit against libnvfp4rt's
 * reference (nvfp4h_quant_block, nvfp4h_swiglu): targeted blocks (zero, -0, NaN, inf,
 * saturating, underflowing, every E2M1 tie, E4M3 ties normal and subnormal, negative gs)
 * and random blocks over the whole fp32 range. The same IR compiled for sm_100a must use
 * IEEE division (div.rn.f32), the precondition of bit-exactness on the GPU.
 *   usage: nvfp4-capi-quant-emit            (prints the module)
 *          nvfp4-capi-quant-emit --check SO (runs the compiled functions)
 */
// RUN: nvfp4-capi-quant-emit > %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o %t.ll
// RUN: clang -O2 -shared -fPIC %t.ll -o %t.so
// RUN: nvfp4-capi-quant-emit --check %t.so | FileCheck %s
// RUN: llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_100a -mattr=+ptx86 %t.ll -o - | FileCheck %s --check-prefix=PTX
// CHECK: targeted blocks: {{[0-9]+}} checked, 0 differ
// CHECK: random blocks: 300000 checked, 0 differ
// CHECK: swiglu: 100000 checked, 0 differ
// CHECK: quant-emit: PASS
// PTX-NOT: div.{{approx|full}}
// PTX: max.NaN.f32
// PTX: div.rn.f32
// PTX: cvt.rni.f32.f32
// PTX-NOT: div.{{approx|full}}
// PTX: ex2.approx.f32
// PTX-NOT: div.{{approx|full}}
#include "Quantize.h"

#include "nvfp4-c/Dialect.h"
#include "nvfp4rt_host.h"

#include "mlir-c/IR.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *kSkeleton =
    "module {\n"
    "  llvm.func @nvfp4_test_quant16(%x: !llvm.ptr, %gs: f32, %out: !llvm.ptr) { llvm.return }\n"
    "  llvm.func @nvfp4_test_swiglu(%g: f32, %u: f32, %out: !llvm.ptr) { llvm.return }\n"
    "}\n";

/* A builder over the body of func (its placeholder return removed). */
static KbBuilder builderFor(MlirContext ctx, MlirOperation func) {
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  mlirOperationDestroy(mlirBlockGetFirstOperation(entry));
  KbBuilder b;
  kbInit(&b, ctx, mlirOperationGetLocation(func), body, entry);
  return b;
}

static void print_cb(MlirStringRef s, void *user) { fwrite(s.data, 1, s.length, (FILE *)user); }

static int emit(void) {
  MlirContext ctx = mlirContextCreate();
  mlirNvfp4RegisterAllUpstream(ctx);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSkeleton));
  if (mlirModuleIsNull(m)) { fprintf(stderr, "skeleton rejected\n"); return 1; }
  MlirBlock top = mlirModuleGetBody(m);
  MlirOperation quant = mlirBlockGetFirstOperation(top);
  MlirOperation swiglu = mlirOperationGetNextInBlock(quant);

  KbBuilder b = builderFor(ctx, quant);
  MlirBlock entry = b.entry;
  KbValue x[NVFP4_QUANT_BLOCK];
  for (int i = 0; i < NVFP4_QUANT_BLOCK; ++i)
    x[i] = kbLoad(&b, b.f32, kbGep(&b, mlirBlockGetArgument(entry, 0), 4 * i), 4);
  Nvfp4QuantBlock q = nvfp4EmitQuantBlock(&b, x, mlirBlockGetArgument(entry, 1));
  kbStore(&b, q.packed, mlirBlockGetArgument(entry, 2), 8);
  kbStore(&b, q.scale, kbGep(&b, mlirBlockGetArgument(entry, 2), 8), 1);
  kbReturn(&b);

  KbBuilder s = builderFor(ctx, swiglu);
  KbValue h = nvfp4EmitSwiglu(&s, mlirBlockGetArgument(s.entry, 0), mlirBlockGetArgument(s.entry, 1));
  kbStore(&s, h, mlirBlockGetArgument(s.entry, 2), 4);
  kbReturn(&s);
  if (b.failed || s.failed || !mlirOperationVerify(mlirModuleGetOperation(m))) {
    fprintf(stderr, "emission failed\n");
    return 1;
  }
  mlirOperationPrint(mlirModuleGetOperation(m), print_cb, stdout);
  printf("\n");
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  return 0;
}

typedef void (*quant_fn)(const float *x, float gs, void *out);
typedef void (*swiglu_fn)(float g, float u, float *out);

/* 1 when the compiled block equals the reference bit for bit (reports the first few). */
static int same_block(quant_fn f, const float *x, float gs) {
  static int reported;
  uint64_t out[2] = {0, 0};
  f(x, gs, out);
  uint8_t codes[16], packed[8];
  uint8_t scale = nvfp4h_quant_block(x, gs, codes);
  for (int i = 0; i < 8; i++) packed[i] = (uint8_t)(codes[2 * i] | (codes[2 * i + 1] << 4));
  uint8_t got[9];
  memcpy(got, out, 9);
  int ok = !memcmp(got, packed, 8) && got[8] == scale;
  if (!ok && reported++ < 5) {
    printf("mismatch: gs %a scale got %02x want %02x, codes %s; x =", gs, got[8], scale,
           memcmp(got, packed, 8) ? "differ" : "equal");
    for (int i = 0; i < 16; i++) printf(" %a", x[i]);
    printf("\n");
  }
  return ok;
}

/* Blocks whose first element sets amax (head) and whose others are `rest`. */
static uint64_t targeted(quant_fn f, uint64_t *checked) {
  static const float ties[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  static const float heads[] = {0.0f, -0.0f, 6.0f, -6.0f, 6.375f, 7.125f, 6000.0f, INFINITY,
                                -INFINITY, NAN, 1e-30f, 3e-3f, 1e30f};
  static const float gss[] = {1.0f, 448.0f / 6.0f, 0x1.8p-10f, 1e-6f, -2.0f, 3e38f, 1e-38f};
  uint64_t bad = 0;
  for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
    for (size_t g = 0; g < sizeof gss / sizeof *gss; g++)
      for (size_t t = 0; t < sizeof ties / sizeof *ties; t++) {
        float x[16] = {heads[h], ties[t], -ties[t], nextafterf(ties[t], 0), nextafterf(ties[t], 9),
                       -0.0f, 0.0f, NAN, 1.0f, -1.0f, 5.9f, 6.1f, 1e-40f, -3.0f, 2.0f, 0.5f};
        if (t % 2) x[7] = 0.3f; /* half the blocks without a NaN */
        bad += !same_block(f, x, gss[g]);
        ++*checked;
      }
  return bad;
}

static float random_float(nvfp4h_rng *g) {
  uint32_t r = (uint32_t)nvfp4h_rng_next(g), bits;
  /* mostly finite values around 1, some anywhere in the fp32 range (specials included) */
  if (r & 1) bits = (uint32_t)nvfp4h_rng_next(g);
  else bits = ((r >> 1) & 0x80000000u) | ((uint32_t)(112 + (r >> 8) % 32) << 23) | (r >> 9 & 0x7FFFFF);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static int check(const char *so) {
  void *h = dlopen(so, RTLD_NOW);
  quant_fn q = h ? (quant_fn)dlsym(h, "nvfp4_test_quant16") : NULL;
  swiglu_fn s = h ? (swiglu_fn)dlsym(h, "nvfp4_test_swiglu") : NULL;
  if (!q || !s) { printf("cannot load %s: %s\n", so, dlerror()); return 1; }
  uint64_t checked = 0, bad = targeted(q, &checked);
  printf("targeted blocks: %llu checked, %llu differ\n", (unsigned long long)checked,
         (unsigned long long)bad);
  uint64_t rbad = 0;
  nvfp4h_rng g = {2026};
  for (int n = 0; n < 300000; n++) {
    float x[16], gs = ldexpf(1.0f + (float)(nvfp4h_rng_next(&g) & 0xFFFF) / 65536.0f,
                             (int)(nvfp4h_rng_next(&g) % 60) - 30);
    for (int i = 0; i < 16; i++) x[i] = random_float(&g);
    rbad += !same_block(q, x, gs);
  }
  printf("random blocks: 300000 checked, %llu differ\n", (unsigned long long)rbad);
  uint64_t sbad = 0;
  for (int n = 0; n < 100000; n++) {
    float a = random_float(&g), u = random_float(&g), got;
    s(a, u, &got);
    float want = nvfp4h_swiglu(a, u);
    sbad += memcmp(&got, &want, 4) != 0 && !(isnan(got) && isnan(want));
  }
  printf("swiglu: 100000 checked, %llu differ\n", (unsigned long long)sbad);
  int ok = bad == 0 && rbad == 0 && sbad == 0;
  printf("quant-emit: %s\n", ok ? "PASS" : "FAIL");
  return !ok;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--check")) return check(argv[2]);
  if (argc == 1) return emit();
  fprintf(stderr, "usage: nvfp4-capi-quant-emit [--check SO]\n");
  return 2;
}
