/* OpTable.h — the one mechanism by which the passes that rewrite generated kernels op by op
 * find what to do with an operation: the CPU target (CpuTarget.c), the tcgen05 emulation
 * (EmulateTcgen05.c), the timing proxy (ProxyTcgen05.c) and the sm_90a retargeting the last
 * two share (RetargetSm90.c). Each pass has a static table of {operation name, handler};
 * nvfp4OpTableLookup finds an operation's handler and nvfp4OpTableRewrite walks a kernel,
 * hands every operation its table names to its handler and erases those replaced.
 *
 *   static const Nvfp4OpEntry kOps[] = {
 *       {"nvvm.tcgen05.alloc", NULL, rewriteAlloc},
 *       {"nvvm.tcgen05.*", NULL, unsupported},         // any other nvvm.tcgen05 op
 *   };
 *   static const Nvfp4OpTable kTable = NVFP4_OP_TABLE(kOps);
 */
#ifndef NVFP4_CONVERSION_OPTABLE_H
#define NVFP4_CONVERSION_OPTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

/* What became of an operation. */
typedef enum Nvfp4OpAction {
  NVFP4_OP_REWRITE = 0, /* (from a walk's prepare) go on to the operation's handler */
  NVFP4_OP_KEEP,        /* the operation stays (from prepare: its handler is skipped) */
  NVFP4_OP_ERASE,       /* the handler replaced it: the walk erases it */
  NVFP4_OP_FAILED       /* stop: the pass has recorded why */
} Nvfp4OpAction;

/* Rewrites `op`; `pass` is the pass's own state (its builder, its error). */
typedef Nvfp4OpAction (*Nvfp4OpHandler)(void *pass, MlirOperation op);

/* One entry of a pass's table: the operations named `name` ("nvvm.mbarrier.init"; a name
 * ending in ".*" names every operation that starts with what precedes the '*'), or, with
 * `name` NULL, every operation carrying the discardable attribute `attr`. */
typedef struct Nvfp4OpEntry {
  const char *name;
  const char *attr;
  Nvfp4OpHandler handler;
} Nvfp4OpEntry;

typedef struct Nvfp4OpTable {
  const Nvfp4OpEntry *entries;
  size_t count;
  const struct Nvfp4OpTable *next; /* consulted when no entry matches (NULL: none) */
} Nvfp4OpTable;

#define NVFP4_OP_TABLE(entries) {(entries), sizeof(entries) / sizeof((entries)[0]), NULL}

/* The handler of the first entry matching `op` (in table order, then `next`'s); NULL when
 * none does. */
Nvfp4OpHandler nvfp4OpTableLookup(const Nvfp4OpTable *table, MlirOperation op);

/* A rewrite of the operations a table names, in a kernel or a module. */
typedef struct Nvfp4OpWalk {
  const Nvfp4OpTable *table;
  void *pass; /* handed to every callback */
  /* Before each handler (NULL: always REWRITE), e.g. to put the pass's builder before the
   * operation: REWRITE, KEEP (skip this operation) or FAILED. */
  Nvfp4OpAction (*prepare)(void *pass, MlirOperation op);
  /* After each handler, with what it returned, which it may turn into FAILED (the pass's
   * builder failed, say); NULL: the handler's word stands. */
  Nvfp4OpAction (*check)(void *pass, MlirOperation op, Nvfp4OpAction done);
} Nvfp4OpWalk;

/* Collects (pre-order) every operation under `root`, itself included, that the table has a
 * handler for, then, in that order, calls prepare, the handler and check on each, erasing
 * it on ERASE: a handler may change or erase operations the table does not name, not the
 * ones it does. Stops at the first FAILED, with *failed (may be NULL) that operation.
 * Returns false on a failure, or when out of memory (*failed null). */
bool nvfp4OpTableRewrite(MlirOperation root, const Nvfp4OpWalk *walk, MlirOperation *failed);

#endif /* NVFP4_CONVERSION_OPTABLE_H */
