/* TargetLog.h — small helpers of the compilation C APIs (TargetLog.c): the growing,
 * NUL-terminated message log they return (Pipeline.h's result log), a growing text buffer,
 * and the calling thread's CPU clock. Out of memory drops the text, never what was already
 * written. */
#ifndef NVFP4_TARGET_TARGETLOG_H
#define NVFP4_TARGET_TARGETLOG_H

#include <stdbool.h>
#include <stddef.h>

/* Appends `size` bytes of text (whole: ptxas -v of a kernel family runs to many kilobytes). */
void nvfp4LogAppend(char **log, const char *text, size_t size);
/* Appends printf-style text (at most 1023 bytes). */
void nvfp4Logf(char **log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growing buffer, NUL-terminated once anything is in it; `failed` after out of memory. */
typedef struct Nvfp4Text { char *data; size_t len, cap; bool failed; } Nvfp4Text;
void nvfp4TextAppend(Nvfp4Text *t, const char *s, size_t n);

/* CPU time of the calling thread, in milliseconds. */
double nvfp4ThreadCpuMs(void);

#endif /* NVFP4_TARGET_TARGETLOG_H */
