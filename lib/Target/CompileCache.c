/* CompileCache.c — the on-disk compile cache (CompileCache.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "CompileCache.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../Conversion/EmulationBitcode.h"
#include "Ptxas.h"
#include "TargetLog.h"
#include "llvm-c/Core.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Version.h"

#define ENTRY_MAGIC "NVFP4CE1"
#define ENTRY_SUFFIX ".nvfp4c"

/* The fixed header of an entry file; key, PTX, cubin and log follow, in that order. */
typedef struct EntryHeader {
  char magic[8];
  uint64_t keySize, ptxSize, cubinSize, logSize;
  uint32_t kernels, reserved;
  uint64_t checksum; /* FNV-1a 64 of everything after the header */
} EntryHeader;

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* ---- the key --------------------------------------------------------------------------- */

static void textf(Nvfp4Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void textf(Nvfp4Text *t, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) nvfp4TextAppend(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void printToText(MlirStringRef s, void *user) { nvfp4TextAppend(user, s.data, s.length); }

/* A file's identity: path, size, modification time and inode (a rebuilt or reinstalled
 * file is another file). */
static void fileIdentity(Nvfp4Text *t, const char *what, const char *path) {
  struct stat st;
  if (path && stat(path, &st) == 0)
    textf(t, "%s: %s %lld %lld.%09ld %llu\n", what, path, (long long)st.st_size,
          (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
  else
    textf(t, "%s: %s (none)\n", what, path ? path : "");
}

/* The file this code was loaded from (the executable or a shared library): a rebuilt
 * compiler may lower the same op differently. */
static void buildIdentity(Nvfp4Text *t) {
  FILE *maps = fopen("/proc/self/maps", "r");
  uintptr_t self = (uintptr_t)(void *)nvfp4CacheKey;
  char line[4096], found[4096] = "";
  while (maps && fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    int at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) >= 2 && at > 0 &&
        self >= lo && self < hi) {
      snprintf(found, sizeof found, "%s", line + at);
      found[strcspn(found, "\n")] = 0;
      break;
    }
  }
  if (maps) fclose(maps);
  fileIdentity(t, "compiler", found[0] ? found : NULL);
}

char *nvfp4CacheKey(MlirOperation module, const MlirNvfp4CompileOptions *o, size_t *size) {
  Nvfp4Text t = {0};
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  textf(&t, "nvfp4 compile cache key 1\nnvfp4-mlir %s, kernel ABI %u, LLVM %u.%u.%u\n",
        NVFP4_VERSION_STRING, NVFP4_ABI_VERSION, major, minor, patch);
  buildIdentity(&t);
  char path[1200];
  nvfp4PtxasPath(o->toolkitPath, path, sizeof path);
  fileIdentity(&t, "ptxas", o->emitCubin ? path : NULL);
  char bc[1024] = "", tried[1024];
  if (o->emulate && !nvfp4FindEmulationBitcode(bc, sizeof bc, tried, sizeof tried)) bc[0] = 0;
  fileIdentity(&t, "emulation library", o->emulate && bc[0] ? bc : NULL);
  /* ptxas -v changes the cubin (ptxas records its options) and the log, not the PTX */
  textf(&t, "emulate %d, proxy %d, cubin %d, ptxas -v %d\n", o->emulate, o->proxy,
        o->emitCubin, o->emitCubin && o->ptxasVerbose);
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOpPrintingFlagsEnableDebugInfo(flags, false, false);
  mlirOperationPrintWithFlags(module, flags, printToText, &t);
  mlirOpPrintingFlagsDestroy(flags);
  if (t.failed || !t.data) {
    free(t.data);
    return NULL;
  }
  *size = t.len;
  return t.data;
}

/* ---- entries --------------------------------------------------------------------------- */

static void entryPath(const char *dir, const char *key, size_t keySize, char *out, size_t n) {
  uint64_t a = fnv1a(0xcbf29ce484222325ull, key, keySize);
  uint64_t b = fnv1a(0x84222325cbf29ce4ull ^ keySize, key, keySize);
  snprintf(out, n, "%s/%016llx%016llx" ENTRY_SUFFIX, dir, (unsigned long long)a,
           (unsigned long long)b);
}

static void *readFile(const char *path, size_t *size, bool *exists) {
  FILE *f = fopen(path, "rb");
  *exists = f != NULL || errno != ENOENT;
  if (!f) return NULL;
  struct stat st;
  void *buf = NULL;
  if (fstat(fileno(f), &st) == 0 && st.st_size >= 0) {
    buf = malloc((size_t)st.st_size + 1);
    if (buf && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
      free(buf);
      buf = NULL;
    }
    *size = (size_t)st.st_size;
  }
  fclose(f);
  return buf;
}

static char *copyText(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

/* Checks a whole entry file against the key; fills `e` (copies) when it is sound. */
static bool parseEntry(const char *data, size_t size, const char *key, size_t keySize,
                       Nvfp4CacheEntry *e) {
  EntryHeader h;
  if (size < sizeof h) return false;
  memcpy(&h, data, sizeof h);
  const uint64_t body = size - sizeof h;
  if (memcmp(h.magic, ENTRY_MAGIC, 8) != 0 || h.keySize > body || h.ptxSize > body ||
      h.cubinSize > body || h.logSize > body ||
      h.keySize + h.ptxSize + h.cubinSize + h.logSize != body ||
      fnv1a(0xcbf29ce484222325ull, data + sizeof h, body) != h.checksum)
    return false;
  const char *p = data + sizeof h;
  if (h.keySize != keySize || memcmp(p, key, keySize) != 0) return false;
  p += keySize;
  if (h.cubinSize && !nvfp4IsCudaElf(p + h.ptxSize, h.cubinSize)) return false;
  e->ptx = copyText(p, h.ptxSize);
  e->ptxSize = h.ptxSize;
  e->cubin = h.cubinSize ? copyText(p + h.ptxSize, h.cubinSize) : NULL;
  e->cubinSize = h.cubinSize;
  e->log = h.logSize ? copyText(p + h.ptxSize + h.cubinSize, h.logSize) : NULL;
  e->logSize = h.logSize;
  e->kernels = h.kernels;
  if (!e->ptx || (h.cubinSize && !e->cubin) || (h.logSize && !e->log)) {
    free(e->ptx);
    free(e->cubin);
    free(e->log);
    return false;
  }
  return true;
}

bool nvfp4CacheLookup(const char *dir, const char *key, size_t keySize, Nvfp4CacheEntry *e,
                      char **log) {
  memset(e, 0, sizeof *e);
  char path[4096];
  entryPath(dir, key, keySize, path, sizeof path);
  size_t size = 0;
  bool exists = false;
  char *data = readFile(path, &size, &exists);
  bool hit = data && parseEntry(data, size, key, keySize, e);
  free(data);
  if (!hit && exists) {
    /* unreadable, torn, tampered with or another key's: never used again */
    unlink(path);
    nvfp4Logf(log, "nvfp4: discarded the unusable compile cache entry %s\n", path);
  }
  return hit;
}

/* mkdir -p */
static bool makeDirs(const char *dir) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return false;
  for (char *s = p + 1; *s; ++s)
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) return false;
      *s = '/';
    }
  return mkdir(p, 0777) == 0 || errno == EEXIST;
}

static bool writeEntry(int fd, const char *key, size_t keySize, const Nvfp4CacheEntry *e) {
  EntryHeader h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, ENTRY_MAGIC, 8);
  h.keySize = keySize;
  h.ptxSize = e->ptxSize;
  h.cubinSize = e->cubin ? e->cubinSize : 0;
  h.logSize = e->log ? e->logSize : 0;
  h.kernels = e->kernels;
  const void *parts[4] = {key, e->ptx, e->cubin, e->log};
  const size_t sizes[4] = {keySize, h.ptxSize, h.cubinSize, h.logSize};
  uint64_t c = 0xcbf29ce484222325ull;
  for (int i = 0; i < 4; ++i) c = fnv1a(c, parts[i], sizes[i]);
  h.checksum = c;
  FILE *f = fdopen(fd, "wb");
  if (!f) return false;
  bool ok = fwrite(&h, sizeof h, 1, f) == 1;
  for (int i = 0; ok && i < 4; ++i) ok = !sizes[i] || fwrite(parts[i], 1, sizes[i], f) == sizes[i];
  return fclose(f) == 0 && ok;
}

bool nvfp4CacheStore(const char *dir, const char *key, size_t keySize, const Nvfp4CacheEntry *e,
                     char **log) {
  char path[4096], temp[4096];
  entryPath(dir, key, keySize, path, sizeof path);
  snprintf(temp, sizeof temp, "%s/.tmp-XXXXXX", dir);
  int fd = makeDirs(dir) ? mkstemp(temp) : -1;
  if (fd < 0) {
    nvfp4Logf(log, "nvfp4: cannot write to the compile cache %s: %s\n", dir, strerror(errno));
    return false;
  }
  fchmod(fd, 0644);
  bool ok = writeEntry(fd, key, keySize, e) && rename(temp, path) == 0;
  if (!ok) {
    nvfp4Logf(log, "nvfp4: cannot write the compile cache entry %s: %s\n", path, strerror(errno));
    unlink(temp);
  }
  return ok;
}
