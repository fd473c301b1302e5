/* tablecache.c — the device copies of a plan's table (KernelABI.h, ABI 6: the group table of
 * the pointer-array form, the shared tensor maps of the contiguous form), which the kernel
 * reads at the header's HDR_TABLE.
 *
 * A cache of N device copies, content-addressed (a hash of the image, then memcmp against
 * the image the copy holds) and replaced least recently used first. A launch whose table is
 * in the cache copies nothing, so two back-to-back launches keep their programmatic
 * dependent launch overlap; a launch whose table is new copies it with cuMemcpyHtoDAsync on
 * the launch's stream, from page-locked memory (cuMemHostAlloc), before the kernel: the
 * copy is ordered after every earlier launch of the stream, which may still read the copy
 * it overwrites, and before the kernel that reads it.
 *
 * Each device copy has its own page-locked image, the source of its copies, rewritten only
 * when the copy is replaced. An event recorded after each copy tells when the source may be
 * rewritten: replacing a copy whose last upload has not executed yet waits for that event.
 *
 * A launch hashes, compares and copies only the part of the image its kernel reads, which
 * the caller names (nvfp4rt_table_extent_): the pointer-array form's maps and records of
 * slots 0..n-1 of a table sized for max_groups (11 KB for 16 groups, 720 KB for 1024), the
 * contiguous form's whole small table. A copy is keyed on that extent (its ranges and group
 * count) and the bytes in it: two images that differ only where the kernel never reads are
 * one entry, and a device copy's bytes outside its extent are whatever an earlier table left
 * there — never read, since the header's group count is the extent's.
 *
 * A launch under stream capture never reads a copy of the ring and puts no copy in the
 * graph: it reads a *kept* copy, uploaded at capture time outside the graph (the thread's
 * capture mode relaxed for the allocation, a synchronous copy on the cache's own
 * non-blocking stream) and kept, unchanged, for the cache's life. A replay is then the
 * kernel alone, as before tables moved to device memory (a copy node in the graph cost the
 * H100 about 10 us per replay of B4), the ring is never pinned, and a launch outside
 * capture whose table a kept copy holds reads that copy too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct table_copy {
  uint64_t dev;          /* device copy (64-B aligned) */
  unsigned char *host;   /* page-locked: the image the copy holds (within `used`), source of
                            its uploads */
  nvfp4rt_table_extent_ used; /* the part of the image the copy holds */
  CUevent copied;        /* recorded after the last upload (valid when `pending`) */
  uint64_t hash, last_use; /* last_use 0: empty */
  int pending;           /* an upload was recorded on `copied` */
} table_copy;

/* A copy uploaded for a captured launch: immutable, freed with the cache. */
typedef struct kept_copy {
  uint64_t dev, hash;
  unsigned char *host;   /* page-locked: the source of its one upload, and its image */
  nvfp4rt_table_extent_ used; /* the part of the image it holds */
} kept_copy;

struct nvfp4rt_table_cache_ {
  uint32_t count;
  size_t bytes, stride;
  uint64_t tick;
  int last;              /* the copy of the last nvfp4rt_table_cache_use_ (-1: none) */
  uint64_t uploads, hits, bytes_uploaded;
  CUdeviceptr dev_base;
  unsigned char *host_base;
  CUstream side;         /* the kept copies' uploads (created at the first) */
  kept_copy *kept;
  uint32_t nkept, capkept;
  table_copy copies[];
};

/* Four independent multiply-xor lanes over 8-byte words (the image is a multiple of 64
 * bytes): a few hundred nanoseconds for a 5.6 KB table. */
static uint64_t hash_image(const unsigned char *p, size_t bytes) {
  uint64_t h[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                   0x27D4EB2F165667C5ull};
  for (size_t i = 0; i + 32 <= bytes; i += 32)
    for (int l = 0; l < 4; l++) {
      uint64_t w;
      memcpy(&w, p + i + 8 * (size_t)l, 8);
      h[l] = (h[l] ^ w) * 0x100000001B3ull;
      h[l] ^= h[l] >> 29;
    }
  return (h[0] ^ (h[1] << 1)) + (h[2] ^ (h[3] >> 1)) + bytes;
}

/* The hash of the part `u` of an image: its ranges' bytes and its group count. */
static uint64_t hash_extent(const unsigned char *image, const nvfp4rt_table_extent_ *u) {
  uint64_t h = 0x9E3779B97F4A7C15ull * (u->groups + 1u);
  for (int i = 0; i < 2; i++)
    if (u->bytes[i]) h = (h ^ hash_image(image + u->off[i], u->bytes[i])) * 0x100000001B3ull;
  return h;
}

/* Does `held` (a copy's extent and image) hold the part `u` of `image`? */
static int holds(const unsigned char *host, const nvfp4rt_table_extent_ *held,
                 const unsigned char *image, const nvfp4rt_table_extent_ *u) {
  if (held->groups != u->groups) return 0;
  for (int i = 0; i < 2; i++)
    if (held->off[i] != u->off[i] || held->bytes[i] != u->bytes[i] ||
        (u->bytes[i] && memcmp(host + u->off[i], image + u->off[i], u->bytes[i]) != 0))
      return 0;
  return 1;
}

/* The host-to-device copies that upload `u`: its two ranges as one span when the gap
 * between them is at most NVFP4RT_TABLE_GAP_MAX bytes, else one copy each. Returns the
 * number of copies (1 or 2). */
static int copy_spans(const nvfp4rt_table_extent_ *u, uint32_t off[2], uint32_t bytes[2]) {
  off[0] = u->off[0];
  bytes[0] = u->bytes[0];
  if (!u->bytes[1]) return 1;
  const uint32_t end0 = u->off[0] + u->bytes[0];
  if (u->off[1] - end0 <= NVFP4RT_TABLE_GAP_MAX) {
    bytes[0] = u->off[1] + u->bytes[1] - u->off[0];
    return 1;
  }
  off[1] = u->off[1];
  bytes[1] = u->bytes[1];
  return 2;
}

nvfp4rt_table_extent_ nvfp4rt_table_extent_groups_(uint32_t max_groups, uint32_t n) {
  const nvfp4rt_table_extent_ u = {
      .off = {nvfp4_abi_tmaps_offset(0), nvfp4_abi_record_offset(max_groups, 0)},
      .bytes = {NVFP4_ABI_GROUP_TMAPS_BYTES * n, NVFP4_ABI_GROUP_RECORD_BYTES * n},
      .groups = n};
  return u;
}

nvfp4rt_table_extent_ nvfp4rt_table_extent_whole_(size_t bytes) {
  const nvfp4rt_table_extent_ u = {.off = {0, 0}, .bytes = {(uint32_t)bytes, 0}, .groups = 0};
  return u;
}

void nvfp4rt_table_cache_destroy_(nvfp4rt_table_cache_ *c) {
  if (!c) return;
  for (uint32_t i = 0; i < c->nkept; i++) {
    NVFP4RT_CU(cuMemFree)((CUdeviceptr)c->kept[i].dev);
    NVFP4RT_CU(cuMemFreeHost)(c->kept[i].host);
  }
  free(c->kept);
  if (c->side) NVFP4RT_CU(cuStreamDestroy)(c->side);
  for (uint32_t i = 0; i < c->count; i++)
    if (c->copies[i].copied) NVFP4RT_CU(cuEventDestroy)(c->copies[i].copied);
  if (c->host_base) NVFP4RT_CU(cuMemFreeHost)(c->host_base);
  if (c->dev_base) NVFP4RT_CU(cuMemFree)(c->dev_base);
  free(c);
}

nvfp4rt_status nvfp4rt_table_cache_create_(uint32_t count, size_t bytes,
                                           nvfp4rt_table_cache_ **out) {
  *out = NULL;
  if (count == 0 || count > NVFP4RT_TABLE_CACHE_MAX || bytes == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "table cache of %u copies of %zu bytes (1..%u copies)", count, bytes,
                        NVFP4RT_TABLE_CACHE_MAX);
  nvfp4rt_table_cache_ *c = calloc(1, sizeof *c + sizeof(table_copy) * count);
  if (!c) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "table cache: malloc failed");
  c->count = count;
  c->bytes = bytes;
  c->stride = (bytes + 255) / 256 * 256;
  c->last = -1;
  const size_t total = c->stride * count;
  CUresult r = NVFP4RT_CU(cuMemAlloc)(&c->dev_base, total);
  const char *call = "cuMemAlloc";
  void *host = NULL;
  if (r == CUDA_SUCCESS) {
    call = "cuMemHostAlloc";
    r = NVFP4RT_CU(cuMemHostAlloc)(&host, total, 0);
    c->host_base = host;
  }
  for (uint32_t i = 0; r == CUDA_SUCCESS && i < count; i++) {
    call = "cuEventCreate";
    r = NVFP4RT_CU(cuEventCreate)(&c->copies[i].copied, CU_EVENT_DISABLE_TIMING);
    c->copies[i].dev = c->dev_base + c->stride * i;
    c->copies[i].host = c->host_base + c->stride * i;
  }
  if (r != CUDA_SUCCESS) {
    nvfp4rt_table_cache_destroy_(c);
    return nvfp4rt_set_cu_error_(r, call, __FILE__, __LINE__,
                                 "table cache: %u device copies of %zu bytes", count, bytes);
  }
  *out = c;
  return NVFP4RT_STATUS_OK;
}

/* The copy to overwrite: an empty one, else the least recently used one. */
static int victim(const nvfp4rt_table_cache_ *c) {
  int best = -1;
  for (uint32_t i = 0; i < c->count; i++) {
    const table_copy *t = &c->copies[i];
    if (!t->last_use) return (int)i;
    if (best < 0 || t->last_use < c->copies[best].last_use) best = (int)i;
  }
  return best;
}

/* Waits until the last upload from copy t's page-locked image has executed. */
static nvfp4rt_status wait_source(table_copy *t) {
  return nvfp4rt_wait_upload_(t->copied, &t->pending,
                              "table cache: waiting for an earlier table upload");
}

/* Queues the copies of part `u` of `src` (page-locked, laid out as the image) to device
 * copy `dev` on `stream`; adds the bytes copied to the cache's count. On failure after a
 * first copy was queued, waits for the stream: the source may be rewritten at once. */
static nvfp4rt_status copy_extent(nvfp4rt_table_cache_ *c, uint64_t dev, const unsigned char *src,
                                  const nvfp4rt_table_extent_ *u, CUstream stream,
                                  const char *what) {
  uint32_t off[2], bytes[2];
  const int n = copy_spans(u, off, bytes);
  for (int i = 0; i < n; i++) {
    CUresult r = NVFP4RT_CU(cuMemcpyHtoDAsync)((CUdeviceptr)(dev + off[i]), src + off[i],
                                               bytes[i], stream);
    if (r != CUDA_SUCCESS) {
      if (i) NVFP4RT_CU(cuStreamSynchronize)(stream);
      return nvfp4rt_set_cu_error_(r, "cuMemcpyHtoDAsync", __FILE__, __LINE__,
                                   "%u table bytes at %u of %zu (%u groups) to %s", bytes[i],
                                   off[i], c->bytes, u->groups, what);
    }
    c->bytes_uploaded += bytes[i];
  }
  return NVFP4RT_STATUS_OK;
}

/* Copies the spans of `u` from `image` into the page-locked `host` (what copy_extent reads). */
static void stage_extent(unsigned char *host, const unsigned char *image,
                         const nvfp4rt_table_extent_ *u) {
  uint32_t off[2], bytes[2];
  const int n = copy_spans(u, off, bytes);
  for (int i = 0; i < n; i++) memcpy(host + off[i], image + off[i], bytes[i]);
}

/* Uploads part `u` of `image` into copy v on `stream`. On failure the copy is left empty. */
static nvfp4rt_status upload(nvfp4rt_table_cache_ *c, int v, const unsigned char *image,
                             const nvfp4rt_table_extent_ *u, uint64_t hash, CUstream stream) {
  table_copy *t = &c->copies[v];
  nvfp4rt_status st = wait_source(t);
  if (st != NVFP4RT_STATUS_OK) return st;
  t->last_use = 0;
  stage_extent(t->host, image, u);
  char what[48];
  snprintf(what, sizeof what, "device copy %d of %u", v, c->count);
  st = copy_extent(c, t->dev, t->host, u, stream, what);
  if (st != NVFP4RT_STATUS_OK) return st;
  CUresult r = NVFP4RT_CU(cuEventRecord)(t->copied, stream);
  if (r != CUDA_SUCCESS) {
    /* the copy is queued but cannot be tracked: let it finish before the source may be
     * rewritten */
    NVFP4RT_CU(cuStreamSynchronize)(stream);
    return nvfp4rt_set_cu_error_(r, "cuEventRecord", __FILE__, __LINE__, "%s",
                                 "table cache: after a table upload");
  }
  t->pending = 1;
  t->hash = hash;
  t->used = *u;
  c->uploads++;
  return NVFP4RT_STATUS_OK;
}

/* The kept copy holding part `u` of `image`, or -1. */
static int find_kept(const nvfp4rt_table_cache_ *c, const unsigned char *image,
                     const nvfp4rt_table_extent_ *u, uint64_t h) {
  for (uint32_t i = 0; i < c->nkept; i++)
    if (c->kept[i].hash == h && holds(c->kept[i].host, &c->kept[i].used, image, u)) return (int)i;
  return -1;
}

/* A new kept copy of part `u` of `image`, uploaded now, outside the capture the calling
 * thread's stream is in: the thread's capture mode is relaxed for the allocations (as far
 * as the extent's end: the kernel reads nothing beyond it), and the copy runs on the cache's
 * own non-blocking stream, synchronously. On failure nothing is kept. */
static nvfp4rt_status keep(nvfp4rt_table_cache_ *c, const unsigned char *image,
                           const nvfp4rt_table_extent_ *u, uint64_t h, uint64_t *dev) {
  if (c->nkept == c->capkept) {
    const uint32_t cap = c->capkept ? 2 * c->capkept : 4;
    kept_copy *grown = realloc(c->kept, sizeof *grown * cap);
    if (!grown) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "table cache: malloc failed");
    c->kept = grown;
    c->capkept = cap;
  }
  const size_t bytes = u->bytes[1] ? (size_t)u->off[1] + u->bytes[1]
                                   : (size_t)u->off[0] + u->bytes[0];
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CUresult r = NVFP4RT_CU(cuThreadExchangeStreamCaptureMode)(&mode);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, "cuThreadExchangeStreamCaptureMode", __FILE__, __LINE__,
                                 "%s", "table cache: a table for a captured launch");
  const char *call = "cuStreamCreate";
  if (!c->side) r = NVFP4RT_CU(cuStreamCreate)(&c->side, CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = 0;
  void *host = NULL;
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if (r == CUDA_SUCCESS) r = NVFP4RT_CU(cuMemAlloc)(&d, bytes), call = "cuMemAlloc";
  if (r == CUDA_SUCCESS) r = NVFP4RT_CU(cuMemHostAlloc)(&host, bytes, 0), call = "cuMemHostAlloc";
  if (r == CUDA_SUCCESS) {
    stage_extent(host, image, u);
    st = copy_extent(c, (uint64_t)d, host, u, c->side, "a kept copy for a captured launch");
  }
  if (r == CUDA_SUCCESS && st == NVFP4RT_STATUS_OK)
    r = NVFP4RT_CU(cuStreamSynchronize)(c->side), call = "cuStreamSynchronize";
  NVFP4RT_CU(cuThreadExchangeStreamCaptureMode)(&mode); /* the caller's mode again */
  if (r != CUDA_SUCCESS || st != NVFP4RT_STATUS_OK) {
    if (d) NVFP4RT_CU(cuMemFree)(d);
    if (host) NVFP4RT_CU(cuMemFreeHost)(host);
    if (st != NVFP4RT_STATUS_OK) return st;
    return nvfp4rt_set_cu_error_(r, call, __FILE__, __LINE__,
                                 "table cache: a %zu-byte table for a captured launch", bytes);
  }
  c->kept[c->nkept++] = (kept_copy){.dev = d, .hash = h, .host = host, .used = *u};
  c->uploads++;
  *dev = d;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_table_cache_use_(nvfp4rt_table_cache_ *c, const unsigned char *image,
                                        const nvfp4rt_table_extent_ *u, int changed,
                                        CUstream stream, uint64_t *dev) {
  /* the extent: one or two ordered ranges inside the table, the first not empty */
  const uint64_t end0 = (uint64_t)u->off[0] + u->bytes[0];
  if (u->bytes[0] == 0 || end0 > c->bytes ||
      (u->bytes[1] && (u->off[1] < end0 || (uint64_t)u->off[1] + u->bytes[1] > c->bytes)))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "table cache: ranges [%u, +%u) and [%u, +%u) of a %zu-byte table",
                        u->off[0], u->bytes[0], u->off[1], u->bytes[1], c->bytes);
  CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = NVFP4RT_CU(cuStreamIsCapturing)(stream, &cs);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, "cuStreamIsCapturing", __FILE__, __LINE__, "%s",
                                 "table cache: the launch's stream");
  if (cs != CU_STREAM_CAPTURE_STATUS_NONE) { /* a kept copy, never one of the ring */
    c->last = -1; /* the next launch looks its table up: the ring's last copy is not it */
    const uint64_t h = hash_extent(image, u);
    const int k = find_kept(c, image, u, h);
    if (k < 0) return keep(c, image, u, h, dev);
    c->hits++;
    *dev = c->kept[k].dev;
    return NVFP4RT_STATUS_OK;
  }
  int v = changed || c->last < 0 ? -1 : c->last;
  if (v < 0) {
    const uint64_t h = hash_extent(image, u);
    for (uint32_t i = 0; v < 0 && i < c->count; i++) {
      const table_copy *t = &c->copies[i];
      if (t->last_use && t->hash == h && holds(t->host, &t->used, image, u)) v = (int)i;
    }
    const int k = v < 0 ? find_kept(c, image, u, h) : -1;
    if (k >= 0) { /* a table a captured launch uploaded: read its kept copy */
      c->hits++;
      c->last = -1;
      *dev = c->kept[k].dev;
      return NVFP4RT_STATUS_OK;
    }
    if (v >= 0) {
      c->hits++;
    } else {
      v = victim(c);
      nvfp4rt_status st = upload(c, v, image, u, h, stream);
      if (st != NVFP4RT_STATUS_OK) {
        c->last = -1;
        return st;
      }
    }
  }
  table_copy *t = &c->copies[v];
  t->last_use = ++c->tick;
  c->last = v;
  *dev = t->dev;
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_table_cache_info_(const nvfp4rt_table_cache_ *c, uint32_t *count, uint32_t *bytes,
                               uint64_t *uploads, uint64_t *hits, uint64_t *bytes_uploaded) {
  *bytes_uploaded = c ? c->bytes_uploaded : 0;
  *count = c ? c->count : 0;
  *bytes = c ? (uint32_t)c->bytes : 0;
  *uploads = c ? c->uploads : 0;
  *hits = c ? c->hits : 0;
}
