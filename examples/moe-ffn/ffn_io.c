/* ffn_io.c — the buffers and launch arguments both kernel targets of the expert-FFN
 * example use (moe_ffn.h): the buffer list of a run, the two nvfp4rt_moe_problem records
 * over it, and where the compiled kernels are. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moe_ffn.h"

int ffn_io_init(const ffn_data *d, float gs, ffn_path *out, ffn_io *io) {
  const ffn_shape *s = &d->s;
  const uint32_t E = s->experts, I = s->inter, H = s->hidden, M = d->m;
  memset(io, 0, sizeof *io);
  memset(out, 0, sizeof *out);
  io->alpha2 = malloc(sizeof(float) * E);
  io->gs = malloc(sizeof(float) * E);
  out->h = malloc((size_t)M * I / 2 + 1);
  out->sfh = calloc(d->sfh_bytes, 1);
  out->y = malloc(sizeof(uint16_t) * M * H + 1);
  if (!io->alpha2 || !io->gs || !out->h || !out->sfh || !out->y) return -1;
  for (uint32_t e = 0; e < E; e++) io->alpha2[e] = 1.0f / gs, io->gs[e] = gs;
  memset(out->h, 0xFF, (size_t)M * I / 2);
  memset(out->y, 0xFF, sizeof(uint16_t) * M * H);
  const struct { void *p; size_t bytes; const char *name; } b[FFN_BUF_COUNT] = {
      {d->x, (size_t)M * H / 2, "x"},
      {d->sfx, d->sfx_bytes, "SFA of x"},
      {d->w13, (size_t)E * 2 * I * H / 2, "w13"},
      {d->sfw13, d->sfw13_bytes * E, "SFB of w13"},
      {d->w2, (size_t)E * H * I / 2, "w2"},
      {d->sfw2, d->sfw2_bytes * E, "SFB of w2"},
      {d->offsets, sizeof(int32_t) * (E + 1), "offsets"},
      {d->alpha13, sizeof(float) * E, "alpha of the up-projection"},
      {io->alpha2, sizeof(float) * E, "alpha of the down-projection"},
      {io->gs, sizeof(float) * E, "gs"},
      {out->h, (size_t)M * I / 2, "the FP4 intermediate"},
      {out->sfh, d->sfh_bytes, "its scales (SFC)"},
      {out->y, sizeof(uint16_t) * M * H, "Y"}};
  for (int i = 0; i < FFN_BUF_COUNT; i++)
    io->host[i] = b[i].p, io->bytes[i] = b[i].bytes, io->name[i] = b[i].name;
  return 0;
}

void ffn_io_free(ffn_io *io) {
  free(io->alpha2);
  free(io->gs);
  io->alpha2 = io->gs = NULL;
}

void ffn_problems(const ffn_data *d, const uint64_t addr[FFN_BUF_COUNT], nvfp4rt_moe_problem *up,
                  nvfp4rt_moe_problem *down) {
  const ffn_shape *s = &d->s;
  *up = (nvfp4rt_moe_problem){
      .a = addr[FFN_BUF_X], .b = addr[FFN_BUF_W13], .sfa = addr[FFN_BUF_SFX],
      .sfb = addr[FFN_BUF_SFW13], .c = addr[FFN_BUF_H], .offsets = addr[FFN_BUF_OFFSETS],
      .alpha = addr[FFN_BUF_ALPHA13], .m = d->m, .n = 2 * s->inter, .k = s->hidden,
      .ldc = s->inter, .num_experts = s->experts, .sfa_atoms = d->atoms,
      .sfc = addr[FFN_BUF_SFH], .gs = addr[FFN_BUF_GS]};
  *down = (nvfp4rt_moe_problem){
      .a = addr[FFN_BUF_H], .b = addr[FFN_BUF_W2], .sfa = addr[FFN_BUF_SFH],
      .sfb = addr[FFN_BUF_SFW2], .c = addr[FFN_BUF_Y], .offsets = addr[FFN_BUF_OFFSETS],
      .alpha = addr[FFN_BUF_ALPHA2], .m = d->m, .n = s->hidden, .k = s->inter,
      .ldc = s->hidden, .num_experts = s->experts, .sfa_atoms = d->atoms};
}

/* The default kernel folder: ../lib/moe-ffn from the executable's own folder (the build
 * tree's bin/ and lib/, the device package's). */
static int default_dir(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return -1;
  *slash = '\0';
  const size_t used = strlen(buf);
  return snprintf(buf + used, size - used, "/../lib/moe-ffn") < (int)(size - used) ? 0 : -1;
}

int ffn_kernel_path(const ffn_data *d, const ffn_kernel_opts *o, const char *op,
                    const char *arch, const char *ext, char *buf, size_t size) {
  char dir[4096];
  if (o->dir) snprintf(dir, sizeof dir, "%s", o->dir);
  else if (default_dir(dir, sizeof dir)) return -1;
  int n = snprintf(buf, size, "%s/%s%s.%s.%s", dir, op, d->s.suffix, arch, ext);
  return n > 0 && (size_t)n < size ? 0 : -1;
}
