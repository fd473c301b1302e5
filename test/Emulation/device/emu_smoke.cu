// emu_smoke.cu — H200 (sm_90a) smoke test of the tcgen05 emulation library: one CTA of
// 6 warps runs the kernel protocol of the design (warp 5 allocates TMEM, copies scale
// factors with tcgen05.cp, issues 4 MMAs and commits to an mbarrier; warps 0-3 wait,
// tcgen05.ld the accumulator and store it), compared bit-exactly with a host reference.
// With argument "trap" it then runs a kernel whose tcgen05.ld violates the lane-quarter
// rule and expects the launch to fail with a device assert.
// Build: run_smoke.sh (nvcc -rdc + the library compiled to PTX by clang-22).
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
__device__ void nvfp4_emu_tcgen05_alloc(unsigned long long dst, uint32_t ncols, uint64_t ws);
__device__ void nvfp4_emu_tcgen05_dealloc(uint32_t taddr, uint32_t ncols);
__device__ void nvfp4_emu_tcgen05_relinquish_alloc_permit(void);
__device__ void nvfp4_emu_tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc);
__device__ void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(uint32_t d, uint64_t adesc,
                                                       uint64_t bdesc, uint32_t idesc,
                                                       uint32_t en, uint32_t sfa,
                                                       uint32_t sfb);
__device__ void nvfp4_emu_tcgen05_commit(unsigned long long mbar);
__device__ void nvfp4_emu_tcgen05_ld_32x32b(uint32_t taddr, uint32_t *dst, uint32_t num);
__device__ void nvfp4_emu_tcgen05_wait_ld(void);
__device__ void nvfp4_emu_tcgen05_fence_before_thread_sync(void);
__device__ void nvfp4_emu_tcgen05_fence_after_thread_sync(void);
}

#define N 128
#define KT 256
static const uint32_t A_OFF = 0, B_OFF = 16384, SF_OFF = 32768, SMEM_USED = 32768 + 4096;

__device__ uint64_t g_cycles, g_cycles_first;

__global__ void smoke(const uint8_t *img, float *out, uint8_t *ws, int bad_quarter) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  __shared__ __align__(8) uint64_t mbar;
  __shared__ uint32_t tmem_slot;
  uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
  uint32_t sbase = (uint32_t)__cvta_generic_to_shared(smem);
  uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (uint32_t i = threadIdx.x; i < SMEM_USED / 16; i += blockDim.x)
    ((uint4 *)smem)[i] = ((const uint4 *)img)[i];
  if (threadIdx.x == 0) {
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&mbar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a));
  }
  if (warp == 5)
    nvfp4_emu_tcgen05_alloc(__cvta_generic_to_shared(&tmem_slot), 512, (uint64_t)ws);
  nvfp4_emu_tcgen05_fence_before_thread_sync();
  __syncthreads();
  nvfp4_emu_tcgen05_fence_after_thread_sync();
  uint32_t tbase = tmem_slot;
  if (warp == 5 && lane == 0) {
    uint64_t t0 = clock64();
    for (uint32_t s = 0; s < KT / 64; ++s) {
      uint64_t sfd = 0x0000400800000000ull;
      nvfp4_emu_tcgen05_cp_32x128b_warpx4(tbase + 256 + 4 * s,
                                          sfd | ((sbase + SF_OFF + 512 * s) >> 4));
      nvfp4_emu_tcgen05_cp_32x128b_warpx4(tbase + 272 + 4 * s,
                                          sfd | ((sbase + SF_OFF + 2048 + 512 * s) >> 4));
      uint64_t opd = 0x4000404000000000ull;
      nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(
          tbase, opd | ((sbase + A_OFF + 32 * s) >> 4), opd | ((sbase + B_OFF + 32 * s) >> 4),
          0x08200480u, s != 0, tbase + 256 + 4 * s, tbase + 272 + 4 * s);
      if (s == 0)
        g_cycles_first = clock64() - t0;
    }
    g_cycles = clock64() - t0;
    nvfp4_emu_tcgen05_commit(__cvta_generic_to_shared(&mbar));
  }
  if (warp < 4) {
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&mbar), done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                   "selp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done)
                   : "r"(a));
    nvfp4_emu_tcgen05_fence_after_thread_sync();
    uint32_t q = bad_quarter ? (warp + 1) % 4 : warp;
    for (uint32_t c = 0; c < N; c += 32) {
      uint32_t v[32];
      nvfp4_emu_tcgen05_ld_32x32b(tbase + ((q * 32) << 16) + c, v, 32);
      nvfp4_emu_tcgen05_wait_ld();
      for (int j = 0; j < 32; ++j)
        out[(warp * 32 + lane) * N + c + j] = __uint_as_float(v[j]);
    }
    nvfp4_emu_tcgen05_fence_before_thread_sync();
  }
  __syncthreads();
  if (warp == 5) {
    nvfp4_emu_tcgen05_fence_after_thread_sync();
    nvfp4_emu_tcgen05_dealloc(tbase, 512);
    nvfp4_emu_tcgen05_relinquish_alloc_permit();
  }
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)rng; }
static double fp4(unsigned c) {
  static const double m[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (c & 8) ? -m[c & 7] : m[c & 7];
}
static double e4m3(unsigned b) {
  unsigned e = (b >> 3) & 15, m = b & 7;
  return e ? ldexp(1.0 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
}

int main(int argc, char **argv) {
  static uint8_t A[128][KT / 2], B[N][KT / 2], SA[128][KT / 16], SB[N][KT / 16];
  static uint8_t img[32768 + 4096];
  for (int r = 0; r < 128; ++r)
    for (int k = 0; k < KT / 2; ++k) { A[r][k] = rnd(); B[r][k] = rnd(); }
  for (int r = 0; r < 128; ++r)
    for (int j = 0; j < KT / 16; ++j) {
      do SA[r][j] = rnd() & 0x7F; while (SA[r][j] == 0x7F);
      do SB[r][j] = rnd() & 0x7F; while (SB[r][j] == 0x7F);
    }
  // TMA SWIZZLE_128B images (1024-aligned): chunk c of row r at c ^ (r % 8).
  for (int r = 0; r < 128; ++r)
    for (int b = 0; b < 128; ++b) {
      img[A_OFF + r * 128 + (((b / 16) ^ (r % 8)) * 16) + b % 16] = A[r][b];
      img[B_OFF + r * 128 + (((b / 16) ^ (r % 8)) * 16) + b % 16] = B[r][b];
    }
  // Blocked scale-factor atoms (docs/format.md), SFA then SFB, one atom per 64 K.
  for (int r = 0; r < 128; ++r)
    for (int j = 0; j < KT / 16; ++j) {
      size_t o = (size_t)(j / 4) * 512 + (r % 32) * 16 + (r / 32) * 4 + j % 4;
      img[SF_OFF + o] = SA[r][j];
      img[SF_OFF + 2048 + o] = SB[r][j];
    }
  uint8_t *dimg, *ws;
  float *dout;
  cudaMalloc(&dimg, sizeof img);
  cudaMalloc(&dout, 128 * N * 4);
  cudaMalloc(&ws, 128 * 512 * 4);
  cudaMemcpy(dimg, img, sizeof img, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(smoke, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_USED + 1024);
  smoke<<<1, 192, SMEM_USED + 1024>>>(dimg, dout, ws, 0);
  cudaError_t err = cudaDeviceSynchronize();
  printf("smoke launch: %s\n", cudaGetErrorString(err));
  if (err) return 1;
  static float got[128 * N];
  cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost);
  uint64_t cyc, cyc0;
  cudaMemcpyFromSymbol(&cyc, g_cycles, 8);
  cudaMemcpyFromSymbol(&cyc0, g_cycles_first, 8);
  int bad = 0;
  for (int m = 0; m < 128; ++m)
    for (int n = 0; n < N; ++n) {
      float d = 0;
      for (int s = 0; s < KT / 64; ++s) {
        double sum = 0;
        for (int k = 64 * s; k < 64 * s + 64; ++k)
          sum += fp4((A[m][k / 2] >> (4 * (k % 2))) & 15) * e4m3(SA[m][k / 16]) *
                 (fp4((B[n][k / 2] >> (4 * (k % 2))) & 15) * e4m3(SB[n][k / 16]));
        d = (float)((double)d + sum);
      }
      if (memcmp(&d, &got[m * N + n], 4) && bad++ < 5)
        printf("D[%d][%d] = %.9g, reference %.9g\n", m, n, got[m * N + n], d);
    }
  printf("smoke: %d mismatches of %d; 4 MMAs (M=128 N=%d K=64) + 8 cp: %llu cycles "
         "(first cp+cp+MMA: %llu)\n",
         bad, 128 * N, N, (unsigned long long)cyc, (unsigned long long)cyc0);
  if (argc > 1 && !strcmp(argv[1], "trap")) {
    smoke<<<1, 192, SMEM_USED + 1024>>>(dimg, dout, ws, 1);
    err = cudaDeviceSynchronize();
    printf("trap launch: %s (%d)\n", cudaGetErrorString(err), (int)err);
    if (err != cudaErrorAssert) return 1;
  }
  return bad ? 1 : 0;
}
