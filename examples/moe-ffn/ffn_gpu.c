/* ffn_gpu.c — the expert-FFN example's GPU target: the two cubins (the up-projection with
 * the fused SwiGLU + NVFP4 epilogue, the down-projection with bf16 C and alpha = 1/gs)
 * loaded and launched through libnvfp4rt, one plan each over the same device buffers (the
 * down-projection reads the intermediate and its scales where the up-projection wrote
 * them). The cubins are chosen by the device's compute capability: 9.0 (H100, H200) runs
 * the native sm_90a kernels, 10.0 (B200) the sm_100a ones; any other device has no build
 * here (FFN_EXIT_NO_GPU), and --kernel-arch forces one, which the runtime then refuses
 * with its own TARGET_MISMATCH when the device cannot run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe_ffn.h"

struct ffn_target {
  nvfp4rt_context *ctx;
  nvfp4rt_module *up, *down;
  int iters;
};

static int rt_error(const char *what, nvfp4rt_status st) {
  fprintf(stderr, "moe-ffn: %s: %s: %s\n", what, nvfp4rt_status_string(st),
          nvfp4rt_last_error_message());
  return FFN_EXIT_ERROR;
}

/* The kernel build for compute capability major.minor, or NULL. */
static const char *arch_for(int major, int minor) {
  if (major == 9 && minor == 0) return "sm_90a";
  if (major == 10 && minor == 0) return "sm_100a";
  return NULL;
}

static int load(ffn_target *t, const ffn_data *d, const ffn_kernel_opts *o, const char *arch,
                const char *op, nvfp4rt_module **mod) {
  char path[4200];
  if (ffn_kernel_path(d, o, op, arch, "cubin", path, sizeof path)) {
    fprintf(stderr, "moe-ffn: cannot name the %s kernel's path\n", op);
    return FFN_EXIT_ERROR;
  }
  nvfp4rt_status st = nvfp4rt_module_load_file(t->ctx, path, mod);
  if (st == NVFP4RT_STATUS_OK) return FFN_EXIT_PASS;
  fprintf(stderr, "moe-ffn: loading %s: %s: %s\n", path, nvfp4rt_status_string(st),
          nvfp4rt_last_error_message());
  if (st == NVFP4RT_STATUS_IO_ERROR)
    fprintf(stderr, "moe-ffn: the example's kernels are built with the tree (lib/moe-ffn); "
                    "--kernels DIR names another folder\n");
  return FFN_EXIT_ERROR;
}

int ffn_gpu_open(const ffn_data *d, const ffn_kernel_opts *o, ffn_target **out) {
  *out = NULL;
  nvfp4rt_status st = nvfp4rt_driver_load();
  if (st == NVFP4RT_STATUS_OK) {
    ffn_target *t = calloc(1, sizeof *t);
    if (!t) return FFN_EXIT_ERROR;
    *out = t;
    t->iters = o->iters;
    st = nvfp4rt_context_create(o->device, &t->ctx);
  }
  if (st == NVFP4RT_STATUS_DRIVER_NOT_FOUND || st == NVFP4RT_STATUS_NO_DEVICE) {
    printf("moe-ffn: skipped: no CUDA GPU (%s: %s)\n", nvfp4rt_status_string(st),
           nvfp4rt_last_error_message());
    return FFN_EXIT_NO_GPU;
  }
  if (st != NVFP4RT_STATUS_OK) return rt_error("CUDA context", st);
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info((*out)->ctx);
  const char *arch = o->arch ? o->arch : arch_for(dev->cc_major, dev->cc_minor);
  printf("device: %s (compute capability %d.%d, %d SMs)\n", dev->name, dev->cc_major,
         dev->cc_minor, dev->sm_count);
  if (!arch) {
    printf("moe-ffn: skipped: no kernel build for compute capability %d.%d (the example "
           "builds sm_90a for 9.0 and sm_100a for 10.0; --kernel-arch forces one)\n",
           dev->cc_major, dev->cc_minor);
    return FFN_EXIT_NO_GPU;
  }
  printf("kernels: %s cubins\n", arch);
  int rc = load(*out, d, o, arch, "ffn_up", &(*out)->up);
  return rc ? rc : load(*out, d, o, arch, "ffn_down", &(*out)->down);
}

/* Device memory for every buffer, the inputs uploaded and the outputs' host contents
 * (0xFF garbage, zero scales) copied too. */
static int upload(ffn_target *t, const ffn_io *io, uint64_t dev[FFN_BUF_COUNT]) {
  for (int i = 0; i < FFN_BUF_COUNT; i++) {
    nvfp4rt_status st = nvfp4rt_mem_alloc(t->ctx, io->bytes[i], &dev[i]);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_memcpy_htod(t->ctx, dev[i], io->host[i], io->bytes[i]);
    if (st != NVFP4RT_STATUS_OK) return rt_error(io->name[i], st);
  }
  return FFN_EXIT_PASS;
}

static int cmp_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* iters launches of the pair on `stream`, each kernel between two events; prints the
 * medians. */
static int launch_timed(ffn_target *t, const ffn_data *d, nvfp4rt_moe_plan *plan[2], void *stream) {
  void *ev[3] = {NULL, NULL, NULL};
  float *ms = calloc(2 * (size_t)t->iters, sizeof *ms);
  nvfp4rt_status st = ms ? NVFP4RT_STATUS_OK : NVFP4RT_STATUS_OUT_OF_MEMORY;
  for (int i = 0; i < 3 && st == NVFP4RT_STATUS_OK; i++) st = nvfp4rt_event_create(t->ctx, &ev[i]);
  for (int it = 0; it < t->iters && st == NVFP4RT_STATUS_OK; it++) {
    for (int k = 0; k < 2 && st == NVFP4RT_STATUS_OK; k++) {
      st = nvfp4rt_event_record(t->ctx, ev[k], stream);
      if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_moe_plan_launch(plan[k], stream);
    }
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_event_record(t->ctx, ev[2], stream);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_stream_synchronize(t->ctx, stream);
    for (int k = 0; k < 2 && st == NVFP4RT_STATUS_OK; k++)
      st = nvfp4rt_event_elapsed_ms(t->ctx, ev[k], ev[k + 1], &ms[(size_t)k * t->iters + it]);
  }
  if (st == NVFP4RT_STATUS_OK) {
    const double flops[2] = {2.0 * d->m * 2 * d->s.inter * d->s.hidden,
                             2.0 * d->m * d->s.hidden * d->s.inter};
    const char *what[2] = {"up-projection (fused SwiGLU + NVFP4)", "down-projection (bf16 C)"};
    for (int k = 0; k < 2; k++) {
      float *v = ms + (size_t)k * t->iters;
      qsort(v, (size_t)t->iters, sizeof *v, cmp_float);
      const float med = v[t->iters / 2];
      printf("gpu %s: median %.1f us over %d launches (%.1f TFLOP/s)\n", what[k], med * 1e3,
             t->iters, med > 0 ? flops[k] / (med * 1e-3) / 1e12 : 0.0);
    }
  }
  for (int i = 0; i < 3; i++) nvfp4rt_event_destroy(t->ctx, ev[i]);
  free(ms);
  return st == NVFP4RT_STATUS_OK ? FFN_EXIT_PASS : rt_error("launch", st);
}

static int plans_and_launch(ffn_target *t, const ffn_data *d, ffn_io *io,
                            const uint64_t dev[FFN_BUF_COUNT]) {
  nvfp4rt_moe_problem p[2];
  ffn_problems(d, dev, &p[0], &p[1]);
  nvfp4rt_module *mods[2] = {t->up, t->down};
  nvfp4rt_moe_plan *plan[2] = {NULL, NULL};
  void *stream = NULL;
  int rc = FFN_EXIT_PASS;
  for (int k = 0; k < 2 && !rc; k++) {
    nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
    nvfp4rt_status st = nvfp4rt_moe_plan_create(mods[k], &p[k], &popts, &plan[k]);
    nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_moe_plan_get_info(plan[k], &info);
    if (st != NVFP4RT_STATUS_OK) rc = rt_error(k ? "down-projection plan" : "up-projection plan", st);
    else printf("gpu kernel: %s  grid %u  smem %u\n", info.kernel_name, info.grid, info.dyn_smem_bytes);
  }
  nvfp4rt_status st = rc ? NVFP4RT_STATUS_OK : nvfp4rt_stream_create(t->ctx, &stream);
  if (st != NVFP4RT_STATUS_OK) rc = rt_error("stream", st);
  if (!rc) rc = launch_timed(t, d, plan, stream);
  for (int i = FFN_BUF_FIRST_OUTPUT; i < FFN_BUF_COUNT && !rc; i++)
    if ((st = nvfp4rt_memcpy_dtoh(t->ctx, io->host[i], dev[i], io->bytes[i])) != NVFP4RT_STATUS_OK)
      rc = rt_error(io->name[i], st);
  nvfp4rt_stream_destroy(t->ctx, stream);
  for (int k = 0; k < 2; k++) nvfp4rt_moe_plan_destroy(plan[k]);
  return rc;
}

int ffn_gpu_run(ffn_target *t, const ffn_data *d, ffn_io *io) {
  uint64_t dev[FFN_BUF_COUNT] = {0};
  int rc = upload(t, io, dev);
  if (!rc) rc = plans_and_launch(t, d, io, dev);
  for (int i = 0; i < FFN_BUF_COUNT; i++) nvfp4rt_mem_free(t->ctx, dev[i]);
  return rc;
}

void ffn_gpu_close(ffn_target *t) {
  if (!t) return;
  nvfp4rt_module_destroy(t->up);
  nvfp4rt_module_destroy(t->down);
  nvfp4rt_context_destroy(t->ctx);
  free(t);
}
