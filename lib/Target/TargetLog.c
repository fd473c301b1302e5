/* TargetLog.c — helpers of the compilation C APIs: log, text buffer, CPU clock (TargetLog.h). */
#include "TargetLog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void nvfp4LogAppend(char **log, const char *text, size_t size) {
  size_t old = *log ? strlen(*log) : 0;
  char *grown = realloc(*log, old + size + 1);
  if (!grown) return;
  memcpy(grown + old, text, size);
  grown[old + size] = 0;
  *log = grown;
}

void nvfp4Logf(char **log, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  nvfp4LogAppend(log, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void nvfp4TextAppend(Nvfp4Text *t, const char *s, size_t n) {
  if (t->failed) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = (t->cap ? t->cap * 2 : 4096) + n;
    char *d = realloc(t->data, cap);
    if (!d) {
      t->failed = true;
      return;
    }
    t->data = d;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = 0;
}

double nvfp4ThreadCpuMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
