/* moe_ffn.h — what the parts of the expert-FFN example share: the problem (host buffers),
 * the outputs of one run, the buffer list the kernel targets launch on (the same for the
 * GPU, where each is copied to device memory, and the CPU target, which reads the host
 * buffers themselves), and the kernel targets' entry points: ffn_gpu.c (the cubins through
 * libnvfp4rt) and ffn_cpu.c (the CPU-target objects through libnvfp4sim). */
#ifndef MOE_FFN_H
#define MOE_FFN_H

#include <stddef.h>
#include <stdint.h>

#include "nvfp4rt.h"

/* Exit status of the example (and of the entry points below). */
#define FFN_EXIT_PASS 0
#define FFN_EXIT_FAIL 1    /* a check failed */
#define FFN_EXIT_ERROR 2   /* bad arguments, out of memory, a kernel refused or faulted */
#define FFN_EXIT_NO_GPU 77 /* --target gpu: no CUDA driver or device, or no kernel build
                              for the device's architecture */

typedef struct ffn_shape {
  uint32_t hidden, inter, experts, topk, tokens;
  const char *suffix; /* of the kernel files: "" (DeepSeek-V3) or "_small" */
} ffn_shape;

typedef struct ffn_data {
  ffn_shape s;
  uint32_t m;                 /* rows = tokens x topk, grouped by expert */
  int32_t *offsets;           /* E + 1 */
  uint8_t *x, *sfx;           /* M x hidden FP4, blocked SFA in expert segments */
  uint8_t *w13, *sfw13;       /* E x 2I x hidden, E blocked tensors */
  uint8_t *w2, *sfw2;         /* E x hidden x I, E blocked tensors */
  float *alpha13;             /* E */
  uint32_t atoms;             /* atom rows of every SFA / SFC buffer (expert segments) */
  size_t sfx_bytes, sfw13_bytes, sfw2_bytes, sfh_bytes;
} ffn_data;

/* The outputs of one run of the FFN. */
typedef struct ffn_path {
  float *act;          /* M x I fp32 activations (the C reference only) */
  uint8_t *h, *sfh;    /* FP4 intermediate and its blocked scales */
  uint16_t *y;         /* M x hidden bf16 */
} ffn_path;

/* The buffers of the two kernel launches: inputs, then the outputs h, sfh, y. */
enum {
  FFN_BUF_X, FFN_BUF_SFX, FFN_BUF_W13, FFN_BUF_SFW13, FFN_BUF_W2, FFN_BUF_SFW2,
  FFN_BUF_OFFSETS, FFN_BUF_ALPHA13, FFN_BUF_ALPHA2, FFN_BUF_GS,
  FFN_BUF_H, FFN_BUF_SFH, FFN_BUF_Y, FFN_BUF_COUNT
};
#define FFN_BUF_FIRST_OUTPUT FFN_BUF_H

typedef struct ffn_io {
  void *host[FFN_BUF_COUNT];    /* inputs: the problem's; outputs: the ffn_path's */
  size_t bytes[FFN_BUF_COUNT];
  const char *name[FFN_BUF_COUNT];
  float *alpha2, *gs;           /* E x 1/gs (the down-projection's alpha), E x gs */
} ffn_io;

/* The buffer list of a kernel run with global scale gs, its outputs in `out` (allocated
 * here, the FP4 intermediate and Y filled with 0xFF so that a row never written fails the
 * checks). -1 when out of memory. */
int ffn_io_init(const ffn_data *d, float gs, ffn_path *out, ffn_io *io);
void ffn_io_free(ffn_io *io);
/* The two launches over the buffers at `addr` (device or host addresses, FFN_BUF_*): the
 * up-projection with the fused SwiGLU + NVFP4 epilogue writing h and sfh, and the
 * down-projection reading them as its A and SFA (no copy), bf16 Y with alpha = 1/gs. */
void ffn_problems(const ffn_data *d, const uint64_t addr[FFN_BUF_COUNT], nvfp4rt_moe_problem *up,
                  nvfp4rt_moe_problem *down);

/* Where the kernels are and how to run them. */
typedef struct ffn_kernel_opts {
  const char *dir;    /* folder of the compiled kernels (default: ../lib/moe-ffn beside the
                         executable) */
  const char *arch;   /* NULL: by the device (gpu), sm_120a (cpu) */
  int device;         /* gpu: device ordinal */
  int iters;          /* gpu: timed launches of the pair */
  uint32_t sms;       /* cpu: simulated SMs */
} ffn_kernel_opts;

/* The path of kernel `op` ("ffn_up", "ffn_down") for the shape and arch: DIR/op SUFFIX
 * .ARCH.EXT. -1 when it does not fit. */
int ffn_kernel_path(const ffn_data *d, const ffn_kernel_opts *o, const char *op,
                    const char *arch, const char *ext, char *buf, size_t size);

/* A kernel target: open (driver, device, kernels; before the long reference work, so that
 * a missing device ends the run at once), run (both launches; outputs in io's host
 * buffers), close. Each returns an FFN_EXIT_* status and prints why when not PASS. */
typedef struct ffn_target ffn_target;
int ffn_gpu_open(const ffn_data *d, const ffn_kernel_opts *o, ffn_target **out);
int ffn_gpu_run(ffn_target *t, const ffn_data *d, ffn_io *io);
void ffn_gpu_close(ffn_target *t);
int ffn_cpu_open(const ffn_data *d, const ffn_kernel_opts *o, ffn_target **out);
int ffn_cpu_run(ffn_target *t, const ffn_data *d, ffn_io *io);
void ffn_cpu_close(ffn_target *t);

#endif /* MOE_FFN_H */
