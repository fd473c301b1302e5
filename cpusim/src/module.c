/* module.c — CPU objects (the ELF check, dlopen, metadata table, per-variant host functions
 * and plan texts, each bounded by its symbol's size), plan-text parsing (strict numbers,
 * bounded site ids), CPU tensor maps (the cuTensorMapEncodeTiled arguments, validated and
 * stored in the 128-byte slot) and the host-side parameter block of a launch. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda.h> /* CUtensorMap* enum numbering only */

#include "internal.h"

/* the accessors the simulator's launch uses */
void (*sim_module_kernel(const nvfp4sim_module *m, uint32_t v))(void *) { return m->kernels[v]; }
const sim_plan *sim_module_plan(const nvfp4sim_module *m, uint32_t v) { return &m->plans[v]; }

static int failf(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- plan texts --------------------------------------------------------------------- */

/* A line of the plan text: [s, e), without its newline. */
typedef struct plan_line { const char *s, *e; uint32_t no; } plan_line;

static const char *skip_blanks(const char *s, const char *e) {
  while (s < e && (*s == ' ' || *s == '\t')) ++s;
  return s;
}

/* The keyword `kw` followed by a blank; *rest: what follows the blanks. */
static bool keyword(const plan_line *l, const char *kw, const char **rest) {
  const size_t n = strlen(kw);
  if ((size_t)(l->e - l->s) <= n || memcmp(l->s, kw, n) != 0 || (l->s[n] != ' ' && l->s[n] != '\t'))
    return false;
  *rest = skip_blanks(l->s + n, l->e);
  return true;
}

/* `count` decimal numbers of 32 bits (each after optional blanks, the last followed by a
 * blank or the end); *s moves past them. */
static bool numbers(const char **s, const char *e, uint32_t *out, int count) {
  const char *p = *s;
  for (int i = 0; i < count; ++i) {
    p = skip_blanks(p, e);
    if (p == e || *p < '0' || *p > '9') return false;
    uint64_t x = 0;
    for (; p < e && *p >= '0' && *p <= '9'; ++p)
      if ((x = x * 10u + (uint64_t)(*p - '0')) > UINT32_MAX) return false;
    out[i] = (uint32_t)x;
  }
  if (p < e && *p != ' ' && *p != '\t') return false;
  *s = skip_blanks(p, e);
  return true;
}

static void copy_text(char *dst, size_t size, const char *s, const char *e) {
  size_t n = (size_t)(e - s);
  if (n >= size) n = size - 1;
  memcpy(dst, s, n);
  dst[n] = 0;
}

/* The first word of [s, e) into dst (truncated to its size). */
static void copy_word(char *dst, size_t size, const char *s, const char *e) {
  const char *w = s;
  while (w < e && *w != ' ' && *w != '\t') ++w;
  copy_text(dst, size, s, w);
}

static int role_index(const char *name) {
  return !strcmp(name, "epilogue") ? 0 : !strcmp(name, "producer") ? 1
         : !strcmp(name, "consumer") ? 3 : !strcmp(name, "decoder") ? 4
         : !strcmp(name, "mmasync") ? 5 : 2;
}

/* A named-range line (smem, barrier, tmem, stagepart) into its table; 1 when `l` is one,
 * -1 when it is malformed, 0 when it is none. */
static int parse_range_line(const plan_line *l, sim_plan *p) {
  static const struct { const char *kw; int nums; } kinds[4] = {
      {"smem", 4}, {"barrier", 3}, {"tmem", 4}, {"stagepart", 2}};
  for (int k = 0; k < 4; ++k) {
    const char *rest;
    if (!keyword(l, kinds[k].kw, &rest)) continue;
    uint32_t v[4] = {0, 0, 1, 0};
    if (!numbers(&rest, l->e, v, kinds[k].nums)) return -1;
    sim_named_range *tab[4] = {p->smem, p->bars, p->tmem, p->parts};
    uint32_t *n[4] = {&p->nsmem, &p->nbars, &p->ntmem, &p->nparts};
    const uint32_t cap[4] = {16, 8, 8, 4};
    if (*n[k] >= cap[k]) return 1; /* more than the reports name: ignored */
    sim_named_range *r = &tab[k][(*n[k])++];
    if (k == 1) v[3] = 8; /* 8 bytes per mbarrier: offset, count, arrivals */
    *r = (sim_named_range){v[0], v[1], v[2], v[3], ""};
    copy_text(r->name, sizeof r->name, rest, l->e);
    return 1;
  }
  return 0;
}

/* A "site ID TEXT" line; false with `why` when it is malformed or its id out of range. */
static bool parse_site(const plan_line *l, const char *rest, sim_plan *p, uint32_t *cap,
                       char *why, size_t size) {
  uint32_t id;
  if (!numbers(&rest, l->e, &id, 1) || id >= NVFP4SIM_MAX_SITES) {
    failf(why, size, "plan text line %u: a site id of 0..%u and its text expected", l->no,
          NVFP4SIM_MAX_SITES - 1u);
    return false;
  }
  if (id >= *cap) {
    uint32_t ncap = *cap ? *cap : 1024;
    while (ncap <= id) ncap *= 2; /* <= 2 * NVFP4SIM_MAX_SITES: no wrap */
    char **g = realloc(p->sites, sizeof *g * ncap);
    if (!g) return failf(why, size, "out of memory") == 0;
    memset(g + *cap, 0, sizeof *g * (ncap - *cap));
    p->sites = g;
    *cap = ncap;
  }
  const size_t n = (size_t)(l->e - rest);
  char *text = malloc(n + 1);
  if (!text) return failf(why, size, "out of memory") == 0;
  memcpy(text, rest, n);
  text[n] = 0;
  free(p->sites[id]); /* a repeated id: the last line wins */
  p->sites[id] = text;
  if (id + 1 > p->nsites) p->nsites = id + 1;
  return true;
}

/* One line; false with `why` when it is malformed. Unknown keywords are ignored. */
static bool parse_line(const plan_line *l, sim_plan *p, uint32_t *cap, char *why, size_t size) {
  const char *rest;
  uint32_t v[2];
  if (keyword(l, "kernel", &rest)) copy_word(p->kernel, sizeof p->kernel, rest, l->e);
  else if (keyword(l, "variant", &rest)) copy_word(p->variant, sizeof p->variant, rest, l->e);
  else if (keyword(l, "site", &rest)) return parse_site(l, rest, p, cap, why, size);
  else if (keyword(l, "role", &rest)) {
    if (!numbers(&rest, l->e, v, 2)) goto bad;
    char name[16];
    copy_word(name, sizeof name, rest, l->e);
    const int r = role_index(name);
    p->role_first[r] = v[0];
    p->role_last[r] = v[1];
  } else {
    static const char *const scalars[3] = {"threads", "cluster", "dyn_smem"};
    uint32_t *dst[3] = {&p->threads, &p->cluster, &p->dyn_smem};
    for (int i = 0; i < 3; ++i)
      if (keyword(l, scalars[i], &rest)) {
        if (!numbers(&rest, l->e, dst[i], 1)) goto bad;
        return true;
      }
    if (parse_range_line(l, p) < 0) goto bad;
  }
  return true;
bad:
  return failf(why, size, "plan text line %u: malformed '%.*s' line", l->no,
               (int)(l->e - l->s < 40 ? l->e - l->s : 40), l->s) == 0;
}

int sim_plan_parse(const char *text, sim_plan *p, char *why, size_t size) {
  return sim_plan_parse_n(text, text ? strlen(text) : 0, p, why, size);
}

int sim_plan_parse_n(const char *text, size_t len, sim_plan *p, char *why, size_t size) {
  memset(p, 0, sizeof *p);
  for (int r = 0; r < SIM_ROLES; ++r) { /* roles the plan does not name match no warp */
    p->role_first[r] = 1;
    p->role_last[r] = 0;
  }
  uint32_t cap = 0, no = 1;
  for (const char *l = text, *end = text + len; l < end; ++no) {
    const char *nl = memchr(l, '\n', (size_t)(end - l));
    plan_line line = {l, nl ? nl : end, no};
    if (memchr(l, 0, (size_t)(line.e - l))) {
      sim_plan_free(p);
      return failf(why, size, "plan text line %u holds a NUL byte", no);
    }
    if (!parse_line(&line, p, &cap, why, size)) {
      sim_plan_free(p);
      return -1;
    }
    l = nl ? nl + 1 : end;
  }
  if (!p->kernel[0] || !p->threads || !p->cluster) {
    sim_plan_free(p);
    return failf(why, size, "plan text without kernel, threads or cluster lines");
  }
  return 0;
}

void sim_plan_free(sim_plan *p) {
  for (uint32_t i = 0; i < p->nsites; ++i) free(p->sites[i]);
  free(p->sites);
  memset(p, 0, sizeof *p);
}

/* ---- CPU objects ------------------------------------------------------------------------ */

/* What the file behind `fd` (of fsize bytes) is, from its ELF header (read into *eh): a
 * directory, text, a cubin, another kind of ELF file are each named for what they are,
 * where dlopen would call them all "cannot open shared object file". */
static int check_elf_header(int fd, uint64_t fsize, Elf64_Ehdr *eh, const char *path, char *why,
                            size_t size) {
  memset(eh, 0, sizeof *eh);
  const ssize_t got = pread(fd, eh, sizeof *eh, 0);
  if (got < 0) return failf(why, size, "cannot read CPU object %s: %s", path, strerror(errno));
  if ((size_t)got < SELFMAG || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
    return failf(why, size, "%s is not a CPU object (not an ELF shared object): nvfp4-compile "
                            "--cpu writes one", path);
  if ((size_t)got >= offsetof(Elf64_Ehdr, e_version) && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
      eh->e_machine == EM_CUDA)
    return failf(why, size, "%s is a cubin (a CUDA ELF image), not a CPU object: run it on a "
                            "GPU without --cpu, or write a CPU object with nvfp4-compile --cpu",
                 path);
  if ((size_t)got < sizeof *eh)
    return failf(why, size, "%s is not a CPU object: %llu bytes, too short for an ELF header",
                 path, (unsigned long long)fsize);
  if (eh->e_type != ET_DYN)
    return failf(why, size, "%s is an ELF file of type %u, not a shared object: nvfp4-compile "
                            "--cpu writes one", path, eh->e_type);
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != SIM_ELF_DATA ||
      eh->e_machine != SIM_ELF_MACHINE)
    return failf(why, size, "%s is not a shared object of this host (ELF class %u, data %u, "
                            "machine %u)", path, eh->e_ident[EI_CLASS], eh->e_ident[EI_DATA],
                 eh->e_machine);
  return 0;
}

/* Whether the header tables and every segment's bytes lie inside the file (dlopen maps a
 * truncated object and faults on the missing pages). */
static int check_elf_extents(int fd, uint64_t fsize, const Elf64_Ehdr *eh, const char *path,
                             char *why, size_t size) {
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum == PN_XNUM ||
      eh->e_phoff > fsize || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > fsize - eh->e_phoff)
    return failf(why, size, "%s is truncated or corrupt: its program header table (%u entries "
                            "at byte %llu) does not fit its %llu bytes", path, eh->e_phnum,
                 (unsigned long long)eh->e_phoff, (unsigned long long)fsize);
  if (eh->e_shnum && (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > fsize ||
                      (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > fsize - eh->e_shoff))
    return failf(why, size, "%s is truncated or corrupt: its section header table (%u entries "
                            "at byte %llu) does not fit its %llu bytes", path, eh->e_shnum,
                 (unsigned long long)eh->e_shoff, (unsigned long long)fsize);
  for (uint32_t i = 0; i < eh->e_phnum; ++i) {
    Elf64_Phdr ph;
    if (pread(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
      return failf(why, size, "cannot read %s: %s", path, strerror(errno));
    if (ph.p_filesz && (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset))
      return failf(why, size, "%s is truncated: segment %u (bytes %llu..%llu) ends past its "
                              "%llu bytes", path, i, (unsigned long long)ph.p_offset,
                   (unsigned long long)(ph.p_offset + ph.p_filesz), (unsigned long long)fsize);
    if (ph.p_type == PT_LOAD && ph.p_filesz > ph.p_memsz)
      return failf(why, size, "%s is corrupt: segment %u holds more bytes in the file than in "
                              "memory", path, i);
  }
  return 0;
}

/* Whether the file behind `fd` is a complete ELF shared object of this host. */
int sim_elf_check(int fd, const char *path, char *why, size_t size) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return failf(why, size, "cannot read CPU object %s: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return failf(why, size, "cannot read CPU object %s: %s", path, strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) return failf(why, size, "%s is not a regular file", path);
  Elf64_Ehdr eh;
  const uint64_t fsize = (uint64_t)st.st_size;
  if (check_elf_header(fd, fsize, &eh, path, why, size) != 0) return -1;
  return check_elf_extents(fd, fsize, &eh, path, why, size);
}

/* The path dlopen is given: `path` itself when it holds a '/', else the file of that name
 * in the current directory (never a library search path). */
static const char *load_path(const char *path, char *buf, size_t size) {
  if (strchr(path, '/')) return path;
  snprintf(buf, size, "./%s", path);
  return buf;
}

/* The symbol `name` of the object and its size (0: unknown). */
static const void *object_symbol(void *ctx, const char *name, size_t *bytes) {
  void *p = dlsym(ctx, name);
  *bytes = 0;
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (p && dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) && sym) *bytes = sym->st_size;
  return p;
}

/* Variant v's kernel function and plan text (bounded by its symbol's size when known). */
static int bind_variant(nvfp4sim_module *m, uint32_t v, sim_symbol_fn symbol, void *ctx,
                        const char *path, char *why, size_t size) {
  const nvfp4_kernel_metadata *meta = &m->table.variants[v];
  const char *name = meta->kernel_name;
  char plan[128];
  snprintf(plan, sizeof plan, "%s%s", name, NVFP4_SIM_PLAN_SUFFIX);
  size_t fbytes, tbytes;
  const void *fn = symbol(ctx, name, &fbytes);
  const char *text = symbol(ctx, plan, &tbytes);
  if (!fn || !text) return failf(why, size, "%s: kernel %s or its plan text is missing", path, name);
  const size_t len = tbytes ? strnlen(text, tbytes) : strlen(text);
  if (tbytes && len == tbytes)
    return failf(why, size, "%s: the plan text of %s is not NUL-terminated inside its %zu-byte "
                            "symbol", path, name, tbytes);
  memcpy(&m->kernels[v], &fn, sizeof fn);
  char perr[200] = "";
  sim_plan *pl = &m->plans[v];
  if (sim_plan_parse_n(text, len, pl, perr, sizeof perr) != 0)
    return failf(why, size, "%s: plan text of %s: %s", path, name, perr);
  if (strcmp(pl->kernel, name) != 0)
    return failf(why, size, "%s: the plan text of kernel %s names kernel '%s'", path, name,
                 pl->kernel);
  if (pl->threads != meta->block[0] || pl->cluster != meta->cluster[0])
    return failf(why, size, "%s: the plan text of %s says %u threads in clusters of %u, its "
                            "metadata record %u in clusters of %u", path, name, pl->threads,
                 pl->cluster, meta->block[0], meta->cluster[0]);
  return 0;
}

int sim_module_bind(nvfp4sim_module *m, sim_symbol_fn symbol, void *ctx, const char *path,
                    char *why, size_t size) {
  size_t bytes;
  const unsigned char *rec = symbol(ctx, NVFP4_METADATA_SYMBOL, &bytes);
  if (!rec)
    return failf(why, size, "%s has no %s symbol (not an nvfp4-compile --cpu object)", path,
                 NVFP4_METADATA_SYMBOL);
  if (bytes && bytes < NVFP4_METADATA_BYTES)
    return failf(why, size, "%s: its %s symbol holds %zu bytes, less than one record", path,
                 NVFP4_METADATA_SYMBOL, bytes);
  uint32_t count = nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_COUNT);
  if (count == 0 || count > NVFP4_METADATA_MAX_VARIANTS)
    return failf(why, size, "%s: metadata table of %u variants (1..%u)", path, count,
                 NVFP4_METADATA_MAX_VARIANTS);
  if (bytes && (size_t)count * NVFP4_METADATA_BYTES > bytes)
    return failf(why, size, "%s: metadata table of %u variants in a %zu-byte symbol", path,
                 count, bytes);
  if (nvfp4rt_metadata_decode_table(rec, (size_t)count * NVFP4_METADATA_BYTES, &m->table) !=
      NVFP4RT_STATUS_OK)
    return failf(why, size, "%s: metadata table: %s", path, nvfp4rt_last_error_message());
  for (uint32_t v = 0; v < m->table.count; ++v)
    if (bind_variant(m, v, symbol, ctx, path, why, size) != 0) return -1;
  return 0;
}

int nvfp4sim_module_load(const char *path, nvfp4sim_module **out, char *why, size_t size) {
  if (!out || !path) return failf(why, size, "module_load: NULL argument");
  *out = NULL;
  char local[4096];
  const char *file = load_path(path, local, sizeof local);
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failf(why, size, "cannot open CPU object %s: %s", path, strerror(errno));
  const int bad = sim_elf_check(fd, path, why, size);
  close(fd);
  if (bad) return -1;
  nvfp4sim_module *m = calloc(1, sizeof *m);
  if (!m) return failf(why, size, "out of memory");
  m->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    failf(why, size, "cannot load CPU object %s: %s", path, dlerror());
    free(m);
    return -1;
  }
  if (sim_module_bind(m, object_symbol, m->handle, path, why, size) != 0) {
    nvfp4sim_module_destroy(m);
    return -1;
  }
  *out = m;
  return 0;
}

void nvfp4sim_module_destroy(nvfp4sim_module *m) {
  if (!m) return;
  for (uint32_t v = 0; v < NVFP4_METADATA_MAX_VARIANTS; ++v) sim_plan_free(&m->plans[v]);
  if (m->handle) dlclose(m->handle);
  free(m);
}

const nvfp4rt_metadata_table *nvfp4sim_module_table(const nvfp4sim_module *m) {
  return m ? &m->table : NULL;
}

int nvfp4sim_module_find_variant(const nvfp4sim_module *m, const char *name) {
  if (!m || !name || !*name) return -1;
  size_t n = strlen(name);
  for (uint32_t v = 0; v < m->table.count; v++) {
    const char *k = m->table.variants[v].kernel_name;
    size_t kn = strlen(k);
    if (!strcmp(k, name) || (kn > n && k[kn - n - 1] == '_' && !strcmp(k + kn - n, name)))
      return (int)v;
  }
  return -1;
}

/* ---- CPU tensor maps ---------------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t off, uint32_t v) { nvfp4_meta_write_u32(p, off, v); }
static void put64(unsigned char *p, uint32_t off, uint64_t v) {
  put32(p, off, (uint32_t)v);
  put32(p, off + 4, (uint32_t)(v >> 32));
}

/* Bits per element of the data types the simulator implements (0: not implemented). */
uint32_t sim_tmap_elem_bits(uint32_t data_type) {
  switch (data_type) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 8;
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: return 16;
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 16;
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32: return 32;
  case CU_TENSOR_MAP_DATA_TYPE_INT64: return 64;
  case CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B: return 4;
  default: return 0;
  }
}

/* Width of the swizzle span in bytes (0: no swizzle, UINT32_MAX: not implemented). */
uint32_t sim_swizzle_bytes(uint32_t swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_NONE: return 0;
  case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
  case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
  case CU_TENSOR_MAP_SWIZZLE_128B: return 128;
  default: return UINT32_MAX;
  }
}

int nvfp4sim_tmap_encode(const nvfp4rt_tmap_args *a, void *slot, char *why, size_t size) {
  if (!a || !slot) return failf(why, size, "tmap_encode: NULL argument");
  const uint32_t bits = sim_tmap_elem_bits(a->data_type);
  const uint32_t sw = sim_swizzle_bytes(a->swizzle);
  if (a->rank != 2) return failf(why, size, "tensor map rank %u (the simulator implements 2)", a->rank);
  if (!bits) return failf(why, size, "tensor map data type %u is not implemented", a->data_type);
  if (sw == UINT32_MAX) return failf(why, size, "tensor map swizzle %u is not implemented", a->swizzle);
  if (a->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
    return failf(why, size, "interleaved tensor maps are not implemented");
  if (!a->global_address || a->global_address % 16)
    return failf(why, size, "tensor map address 0x%llx is null or not 16-byte aligned",
                 (unsigned long long)a->global_address);
  if (!a->dims[0] || !a->dims[1] || a->dims[0] > (1ull << 32) || a->dims[1] > (1ull << 32))
    return failf(why, size, "tensor map dims {%llu, %llu} outside 1..2^32",
                 (unsigned long long)a->dims[0], (unsigned long long)a->dims[1]);
  if (a->stride_bytes[0] % 16 || a->stride_bytes[0] * 8 < a->dims[0] * bits)
    return failf(why, size, "tensor map row stride %llu is not a multiple of 16 or below a row",
                 (unsigned long long)a->stride_bytes[0]);
  if (a->box[0] < 1 || a->box[0] > 256 || a->box[1] < 1 || a->box[1] > 256)
    return failf(why, size, "tensor map box {%u, %u} outside 1..256", a->box[0], a->box[1]);
  const uint32_t rowBytes = a->box[0] * bits / 8;
  if ((a->box[0] * bits) % 128)
    return failf(why, size, "tensor map box row of %u elements is not a multiple of 16 bytes",
                 a->box[0]);
  if (sw && rowBytes > sw)
    return failf(why, size, "tensor map box row of %u bytes exceeds the %u-byte swizzle span",
                 rowBytes, sw);
  if (a->element_strides[0] != 1 || a->element_strides[1] != 1)
    return failf(why, size, "tensor map element strides other than 1 are not implemented");
  if (bits == 4 && a->dims[0] % 2)
    return failf(why, size, "16U4 tensor map with an odd inner dimension");
  unsigned char *p = slot;
  memset(p, 0, NVFP4_ABI_TMAP_BYTES);
  put32(p, NVFP4SIM_TMAP_OFF_MAGIC, NVFP4SIM_TMAP_MAGIC);
  put32(p, NVFP4SIM_TMAP_OFF_VERSION, NVFP4SIM_TMAP_VERSION);
  put32(p, NVFP4SIM_TMAP_OFF_DATA_TYPE, a->data_type);
  put32(p, NVFP4SIM_TMAP_OFF_RANK, a->rank);
  put64(p, NVFP4SIM_TMAP_OFF_ADDRESS, a->global_address);
  put64(p, NVFP4SIM_TMAP_OFF_DIMS, a->dims[0]);
  put64(p, NVFP4SIM_TMAP_OFF_DIMS + 8, a->dims[1]);
  put64(p, NVFP4SIM_TMAP_OFF_STRIDE, a->stride_bytes[0]);
  put32(p, NVFP4SIM_TMAP_OFF_BOX, a->box[0]);
  put32(p, NVFP4SIM_TMAP_OFF_BOX + 4, a->box[1]);
  put32(p, NVFP4SIM_TMAP_OFF_ESTRIDE, a->element_strides[0]);
  put32(p, NVFP4SIM_TMAP_OFF_ESTRIDE + 4, a->element_strides[1]);
  put32(p, NVFP4SIM_TMAP_OFF_INTERLEAVE, a->interleave);
  put32(p, NVFP4SIM_TMAP_OFF_SWIZZLE, a->swizzle);
  put32(p, NVFP4SIM_TMAP_OFF_L2, a->l2_promotion);
  put32(p, NVFP4SIM_TMAP_OFF_OOB, a->oob_fill);
  return 0;
}

static uint64_t get64(const unsigned char *p, uint32_t off) {
  return nvfp4_meta_read_u32(p, off) | ((uint64_t)nvfp4_meta_read_u32(p, off + 4) << 32);
}

bool sim_tmap_decode(const void *slot, sim_tmap *t, char *why, size_t size) {
  const unsigned char *p = slot;
  if (nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_MAGIC) != NVFP4SIM_TMAP_MAGIC ||
      nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_VERSION) != NVFP4SIM_TMAP_VERSION) {
    failf(why, size, "the tensor-map slot holds no CPU tensor map (zero or device-encoded)");
    return false;
  }
  t->data_type = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_DATA_TYPE);
  t->swizzle = sim_swizzle_bytes(nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_SWIZZLE));
  t->oob_fill = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_OOB);
  t->elem_bits = sim_tmap_elem_bits(t->data_type);
  t->base = get64(p, NVFP4SIM_TMAP_OFF_ADDRESS);
  t->dims[0] = get64(p, NVFP4SIM_TMAP_OFF_DIMS);
  t->dims[1] = get64(p, NVFP4SIM_TMAP_OFF_DIMS + 8);
  t->stride = get64(p, NVFP4SIM_TMAP_OFF_STRIDE);
  t->box[0] = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_BOX);
  t->box[1] = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_BOX + 4);
  if (!t->elem_bits || t->swizzle == UINT32_MAX) {
    failf(why, size, "corrupt CPU tensor map");
    return false;
  }
  return true;
}

/* ---- the parameter block ---------------------------------------------------------------- */

int nvfp4sim_params_build(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *groups,
                          uint32_t n, void *block, size_t bytes, nvfp4rt_plan_layout *L,
                          char *why, size_t size) {
  if (!meta || !block || !L) return failf(why, size, "params_build: NULL argument");
  if (nvfp4rt_plan_validate(meta, groups, n, L) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  const size_t image = NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups);
  if (bytes < image || (uintptr_t)block % NVFP4_ABI_PARAM_ALIGN)
    return failf(why, size, "params_build: block of %zu bytes (need %zu, 64-byte aligned)", bytes,
                 image);
  unsigned char *b = block;
  memset(b, 0, image);
  for (uint32_t s = 0; s < n; ++s) {
    if (!L->tiles[s]) continue; /* empty group: its slots stay zero */
    const nvfp4rt_group *G = &groups[L->order[s]];
    for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; ++t) {
      if (t == NVFP4RT_TMAP_C && meta->epilogue != NVFP4_META_EPILOGUE_TMA_STORE) continue;
      nvfp4rt_tmap_args a;
      if (nvfp4rt_tmap_args_for(meta, G, (nvfp4rt_tmap_kind)t, &a) != NVFP4RT_STATUS_OK)
        return failf(why, size, "%s", nvfp4rt_last_error_message());
      if (a.dims[0] == 0) continue; /* C narrower than one 16-byte chunk: no map */
      char e[200];
      if (nvfp4sim_tmap_encode(&a, b + NVFP4_ABI_HEADER_BYTES + nvfp4_abi_tmaps_offset(s) +
                                       NVFP4_ABI_TMAP_BYTES * t,
                               e, sizeof e) != 0)
        return failf(why, size, "group %u tensor map %u: %s", L->order[s], t, e);
    }
  }
  /* the group table follows the header in the caller's image; the kernel reads it through
   * its host address (HDR_TABLE), as a GPU kernel reads the device copy */
  const uint64_t table = (uint64_t)(uintptr_t)(b + NVFP4_ABI_HEADER_BYTES);
  if (nvfp4rt_param_pack(meta, groups, n, L, 0, 0, table, block, bytes) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  return 0;
}

size_t nvfp4sim_moe_image_bytes(const nvfp4_kernel_metadata *meta) {
  if (!meta) return 0;
  return NVFP4_ABI_MOE_PARAM_BYTES + (size_t)nvfp4_abi_moe_table_bytes(nvfp4rt_moe_tmap_count(meta));
}

int nvfp4sim_moe_params_build(const nvfp4_kernel_metadata *meta, const nvfp4rt_moe_problem *p,
                              uint64_t workspace, uint64_t workspace_bytes, void *block,
                              size_t bytes, char *why, size_t size) {
  if (!meta || !p || !block) return failf(why, size, "moe_params_build: NULL argument");
  if (nvfp4rt_moe_validate(meta, p) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  const size_t image = nvfp4sim_moe_image_bytes(meta);
  if (bytes < image || (uintptr_t)block % NVFP4_ABI_PARAM_ALIGN)
    return failf(why, size, "moe_params_build: block of %zu bytes (need %zu, 64-byte aligned)",
                 bytes, image);
  unsigned char *b = block, *table = b + NVFP4_ABI_MOE_PARAM_BYTES;
  memset(b, 0, image);
  for (uint32_t s = 0; s < nvfp4rt_moe_tmap_count(meta); s++) {
    nvfp4rt_tmap_args a;
    if (nvfp4rt_moe_tmap_args(meta, p, s, &a) != NVFP4RT_STATUS_OK)
      return failf(why, size, "%s", nvfp4rt_last_error_message());
    char e[200];
    if (a.rank && nvfp4sim_tmap_encode(&a, table + NVFP4_ABI_TMAP_BYTES * s, e, sizeof e) != 0)
      return failf(why, size, "tensor map %u: %s", s, e);
  }
  if (nvfp4rt_moe_param_pack(meta, p, workspace, workspace_bytes, block,
                             NVFP4_ABI_MOE_PARAM_BYTES) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  /* the shared maps follow the block in the image: read through their host address */
  nvfp4_meta_write_u64(b, NVFP4_ABI_HDR_TABLE, (uint64_t)(uintptr_t)table);
  return 0;
}
