/* cpuobj_fuzzer.c — libFuzzer harness for what libnvfp4sim does with a CPU object it is
 * handed (nvfp4sim_module_load) and with the plan texts inside one:
 *   - an input that starts with the ELF magic is a CPU object: the loader's ELF check
 *     (sim_elf_check, on the bytes written to a file) and, when the image passes it, the
 *     binding of its metadata table, kernels and plan texts (sim_module_bind) through the
 *     object's own dynamic symbol table, read here from the bytes the way the dynamic
 *     loader would map them — everything nvfp4sim_module_load does but the dlopen itself
 *     (the system's loader, not fuzzed here: an image that passes the check maps only bytes
 *     inside the file);
 *   - any other input is a plan text: parsed (sim_plan_parse_n) and, when it parses, the
 *     plan of a small kernel's launch whose reports name sites, roles, shared-memory ranges
 *     and mbarriers through it.
 * Run by scripts/fuzz.sh (seeds: CPU objects compiled from examples/test1.mlir for both
 * targets, their plan texts, and fuzz/regressions/cpuobj/). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* ---- a CPU object's dynamic symbols, from its bytes --------------------------------------- */

typedef struct image {
  const uint8_t *data;
  size_t size;
  const Elf64_Phdr *ph;
  uint32_t nph;
  const Elf64_Sym *syms;
  size_t nsyms;
  const char *strtab;
  size_t strsz;
} image;

/* The file bytes behind virtual address `va` (n bytes), or NULL. */
static const uint8_t *at_vaddr(const image *im, uint64_t va, uint64_t n) {
  for (uint32_t i = 0; i < im->nph; ++i) {
    const Elf64_Phdr *p = &im->ph[i];
    if (p->p_type != PT_LOAD || va < p->p_vaddr || va - p->p_vaddr > p->p_filesz ||
        n > p->p_filesz - (va - p->p_vaddr))
      continue;
    return im->data + p->p_offset + (va - p->p_vaddr);
  }
  return NULL;
}

/* .dynsym and .dynstr through the section headers (sim_elf_check has bounded the tables
 * and the segments). */
static int read_symbols(image *im) {
  const Elf64_Ehdr *eh = (const void *)im->data;
  im->ph = (const void *)(im->data + eh->e_phoff);
  im->nph = eh->e_phnum;
  if (!eh->e_shnum) return -1;
  const Elf64_Shdr *sh = (const void *)(im->data + eh->e_shoff);
  for (uint32_t i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr *str = &sh[sh[i].sh_link];
    if (sh[i].sh_offset > im->size || sh[i].sh_size > im->size - sh[i].sh_offset ||
        str->sh_offset > im->size || str->sh_size > im->size - str->sh_offset ||
        sh[i].sh_offset % _Alignof(Elf64_Sym))
      return -1;
    im->syms = (const void *)(im->data + sh[i].sh_offset);
    im->nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
    im->strtab = (const char *)im->data + str->sh_offset;
    im->strsz = str->sh_size;
    return 0;
  }
  return -1;
}

static const void *image_symbol(void *ctx, const char *name, size_t *bytes) {
  const image *im = ctx;
  const size_t n = strlen(name);
  *bytes = 0;
  for (size_t i = 0; i < im->nsyms; ++i) {
    const Elf64_Sym *s = &im->syms[i];
    if (s->st_name >= im->strsz || im->strsz - s->st_name <= n ||
        memcmp(im->strtab + s->st_name, name, n + 1) != 0 || s->st_shndx == SHN_UNDEF)
      continue;
    const uint8_t *p = at_vaddr(im, s->st_value, s->st_size ? s->st_size : 1);
    if (p) *bytes = s->st_size;
    return p; /* a kernel's bytes are never executed here */
  }
  return NULL;
}

static void fuzz_object(const uint8_t *data, size_t size) {
  char path[] = "/tmp/nvfp4-cpuobj-fuzz-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return;
  unlink(path);
  const int written = write(fd, data, size) == (ssize_t)size;
  char why[512];
  if (!written || sim_elf_check(fd, "input", why, sizeof why) != 0) {
    close(fd);
    return;
  }
  close(fd);
  /* the checked image, 8-byte aligned for the ELF structures */
  uint64_t *copy = malloc(size + 8);
  if (!copy) return;
  memcpy(copy, data, size);
  image im = {(const uint8_t *)copy, size, NULL, 0, NULL, 0, NULL, 0};
  nvfp4sim_module *m = calloc(1, sizeof *m);
  if (m && read_symbols(&im) == 0) sim_module_bind(m, image_symbol, &im, "input", why, sizeof why);
  if (m)
    for (uint32_t v = 0; v < NVFP4_METADATA_MAX_VARIANTS; ++v) sim_plan_free(&m->plans[v]);
  free(m);
  free(copy);
}

/* ---- plan texts ----------------------------------------------------------------------------- */

typedef struct params {
  _Alignas(64) uint32_t site[4];
  uint32_t deadlock;
} params;

/* One warp: an mbarrier, a shared-memory store, a global store of lane 0 that the other
 * lanes read without synchronisation (reported when lane 0 ran first), and with `deadlock`
 * a wait for a phase that never completes (the deadlock report): the reports name sites,
 * roles, shared-memory ranges and mbarriers through the fuzzed plan. */
static uint32_t g_out[64];
static void kernel(void *arg) {
  const params *p = arg;
  const uint32_t lane = nvfp4_sim_sreg(NVFP4_SIM_SREG_LANEID);
  const uint32_t base = (nvfp4_sim_dyn_smem() + 1023u) & ~1023u;
  if (lane == 0) {
    nvfp4_sim_mbar_init(base, 1, p->site[0]);
    nvfp4_sim_smem_access(base + 64, 4, 1, p->site[2]);
  }
  nvfp4_sim_global_access(&g_out[0], 4, 4, lane == 0, p->site[1]);
  nvfp4_sim_warp_sync(0xFFFFFFFFu, p->site[3]);
  if (lane == 1 && p->deadlock)
    while (!nvfp4_sim_mbar_try_wait(base, 0, 0, p->site[3])) {
    }
}

static void fuzz_plan(const uint8_t *data, size_t size) {
  sim_plan plan;
  char why[256];
  if (sim_plan_parse_n((const char *)data, size, &plan, why, sizeof why) != 0) return;
  sim_plan_free(&plan);
  char *text = malloc(size + 1);
  if (!text) return;
  memcpy(text, data, size);
  text[size] = 0;
  params p;
  for (uint32_t i = 0; i < 4; ++i) /* sites from the input: inside and outside its table */
    p.site[i] = size > i ? (uint32_t)data[size - 1 - i] * 4099u : i;
  p.deadlock = data[0] & 1u;
  nvfp4_kernel_metadata meta;
  memset(&meta, 0, sizeof meta);
  meta.block[0] = 32;
  meta.block[1] = meta.block[2] = 1;
  meta.cluster[0] = meta.cluster[1] = meta.cluster[2] = 1;
  meta.dyn_smem_bytes = 4096;
  meta.param_bytes = sizeof p;
  FILE *log = fopen("/dev/null", "w");
  nvfp4sim_range out = {g_out, sizeof g_out, "out"};
  nvfp4sim_options o = {data[0], 4, log, 0, NVFP4SIM_CLUSTERS_FORWARD, 1, NULL, 0, 1};
  nvfp4sim_result r;
  nvfp4sim_launch_kernel(kernel, &meta, text, &p, 1, &out, 1, &o, &r);
  if (log) fclose(log);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0) fuzz_object(data, size);
  else if (size) fuzz_plan(data, size);
  return 0;
}
