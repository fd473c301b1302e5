/* OpTable.c — the lookup and the rewrite walk over the passes' operation tables
 * (OpTable.h). */
#include "OpTable.h"

#include <stdlib.h>
#include <string.h>

#include "mlir-c/Support.h"

/* Does the operation name `n` match `pattern` (exact, or a prefix ending in ".*")? */
static bool nameMatches(MlirStringRef n, const char *pattern) {
  size_t len = strlen(pattern);
  if (len >= 2 && pattern[len - 1] == '*' && pattern[len - 2] == '.')
    return n.length >= len - 1 && !strncmp(n.data, pattern, len - 1);
  return n.length == len && !strncmp(n.data, pattern, len);
}

Nvfp4OpHandler nvfp4OpTableLookup(const Nvfp4OpTable *table, MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  for (; table; table = table->next)
    for (size_t i = 0; i < table->count; ++i) {
      const Nvfp4OpEntry *e = &table->entries[i];
      if (e->name ? nameMatches(name, e->name)
                  : e->attr && !mlirAttributeIsNull(mlirOperationGetAttributeByName(
                                   op, mlirStringRefCreateFromCString(e->attr))))
        return e->handler;
    }
  return NULL;
}

typedef struct Pending {
  MlirOperation *ops;
  Nvfp4OpHandler *handlers;
  size_t n, cap;
  bool oom;
  const Nvfp4OpTable *table;
} Pending;

static MlirWalkResult collect(MlirOperation op, void *user) {
  Pending *p = user;
  Nvfp4OpHandler h = nvfp4OpTableLookup(p->table, op);
  if (!h || p->oom) return MlirWalkResultAdvance;
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 1024;
    MlirOperation *ops = realloc(p->ops, sizeof *ops * cap);
    if (ops) p->ops = ops;
    Nvfp4OpHandler *hs = ops ? realloc(p->handlers, sizeof *hs * cap) : NULL;
    if (hs) p->handlers = hs;
    if (!ops || !hs) {
      p->oom = true;
      return MlirWalkResultInterrupt;
    }
    p->cap = cap;
  }
  p->ops[p->n] = op;
  p->handlers[p->n++] = h;
  return MlirWalkResultAdvance;
}

bool nvfp4OpTableRewrite(MlirOperation root, const Nvfp4OpWalk *walk, MlirOperation *failed) {
  if (failed) *failed = (MlirOperation){NULL};
  Pending p = {.table = walk->table};
  mlirOperationWalk(root, collect, &p, MlirWalkPreOrder);
  bool ok = !p.oom;
  for (size_t i = 0; ok && i < p.n; ++i) {
    MlirOperation op = p.ops[i];
    Nvfp4OpAction a = walk->prepare ? walk->prepare(walk->pass, op) : NVFP4_OP_REWRITE;
    if (a == NVFP4_OP_REWRITE) {
      a = p.handlers[i](walk->pass, op);
      if (walk->check) a = walk->check(walk->pass, op, a);
    }
    if (a == NVFP4_OP_FAILED) {
      if (failed) *failed = op;
      ok = false;
    } else if (a == NVFP4_OP_ERASE) {
      mlirOperationDestroy(op);
    }
  }
  free(p.ops);
  free(p.handlers);
  return ok;
}
