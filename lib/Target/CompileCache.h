/* CompileCache.h — the on-disk compile cache of mlirNvfp4CompileModule (CompileCache.c),
 * for programs that compile kernels at run time.
 *
 * An entry is one file `<dir>/<32 hex digits>.nvfp4c`, named by a hash of its key and
 * holding the key itself (a lookup compares it whole, so a hash collision is a miss), the
 * PTX, the cubin, ptxas' log and a checksum. The key is the module's generic text without
 * locations, the compiler build (version, ABI, and the identity of the binary holding this
 * code), LLVM's version, ptxas' identity, the emulation library's and the options that
 * change the output. Entries are written to a temporary file in the directory and renamed
 * into place, so processes sharing the directory only ever read whole entries; an entry
 * that fails any check (size, magic, checksum, key, ELF header) is deleted and reported as
 * a miss. */
#ifndef NVFP4_TARGET_COMPILECACHE_H
#define NVFP4_TARGET_COMPILECACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"
#include "nvfp4-c/Pipeline.h"

typedef struct Nvfp4CacheEntry {
  char *ptx;
  size_t ptxSize;
  void *cubin;
  size_t cubinSize;
  char *log;
  size_t logSize;
  unsigned kernels;
} Nvfp4CacheEntry;

/* The key of compiling `module` with `options` (toolkitPath set); malloc'd, NULL when out
 * of memory. */
char *nvfp4CacheKey(MlirOperation module, const MlirNvfp4CompileOptions *options,
                    size_t *size);

/* true on a hit, with the entry's contents malloc'd into `e` (NUL-terminated ptx and log).
 * A corrupt entry is deleted, noted in the log, and is a miss. */
bool nvfp4CacheLookup(const char *dir, const char *key, size_t keySize, Nvfp4CacheEntry *e,
                      char **log);

/* Writes the entry (creating `dir` when needed); false, with a note in the log, when it
 * could not: the compilation itself has succeeded all the same. */
bool nvfp4CacheStore(const char *dir, const char *key, size_t keySize, const Nvfp4CacheEntry *e,
                     char **log);

#endif /* NVFP4_TARGET_COMPILECACHE_H */
