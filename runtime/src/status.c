/* status.c — status strings and the thread-local last-error record of libnvfp4rt. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const kStatusNames[NVFP4RT_STATUS_COUNT_] = {
    [NVFP4RT_STATUS_OK] = "NVFP4RT_STATUS_OK",
    [NVFP4RT_STATUS_DRIVER_NOT_FOUND] = "NVFP4RT_STATUS_DRIVER_NOT_FOUND",
    [NVFP4RT_STATUS_NO_DEVICE] = "NVFP4RT_STATUS_NO_DEVICE",
    [NVFP4RT_STATUS_INVALID_ARGUMENT] = "NVFP4RT_STATUS_INVALID_ARGUMENT",
    [NVFP4RT_STATUS_NULL_POINTER] = "NVFP4RT_STATUS_NULL_POINTER",
    [NVFP4RT_STATUS_MISALIGNED] = "NVFP4RT_STATUS_MISALIGNED",
    [NVFP4RT_STATUS_BAD_SHAPE] = "NVFP4RT_STATUS_BAD_SHAPE",
    [NVFP4RT_STATUS_TOO_MANY_GROUPS] = "NVFP4RT_STATUS_TOO_MANY_GROUPS",
    [NVFP4RT_STATUS_BAD_CUBIN] = "NVFP4RT_STATUS_BAD_CUBIN",
    [NVFP4RT_STATUS_ABI_MISMATCH] = "NVFP4RT_STATUS_ABI_MISMATCH",
    [NVFP4RT_STATUS_TARGET_MISMATCH] = "NVFP4RT_STATUS_TARGET_MISMATCH",
    [NVFP4RT_STATUS_CUDA_ERROR] = "NVFP4RT_STATUS_CUDA_ERROR",
    [NVFP4RT_STATUS_OUT_OF_MEMORY] = "NVFP4RT_STATUS_OUT_OF_MEMORY",
    [NVFP4RT_STATUS_OVERFLOW] = "NVFP4RT_STATUS_OVERFLOW",
    [NVFP4RT_STATUS_IO_ERROR] = "NVFP4RT_STATUS_IO_ERROR",
    [NVFP4RT_STATUS_UNSUPPORTED] = "NVFP4RT_STATUS_UNSUPPORTED",
};

const char *nvfp4rt_status_string(nvfp4rt_status status) {
  if ((unsigned)status >= NVFP4RT_STATUS_COUNT_) return "NVFP4RT_STATUS_<unknown>";
  return kStatusNames[status];
}

typedef struct error_slot {
  nvfp4rt_error pub;
  char call[64];
  char message[768];
} error_slot;

static _Thread_local error_slot tls_error = {
    {NVFP4RT_STATUS_OK, 0, "", "", 0, ""}, "", ""};

const nvfp4rt_error *nvfp4rt_last_error(void) {
  tls_error.pub.cu_call = tls_error.call;
  tls_error.pub.message = tls_error.message;
  if (!tls_error.pub.file) tls_error.pub.file = "";
  return &tls_error.pub;
}
const char *nvfp4rt_last_error_message(void) { return tls_error.message; }
void nvfp4rt_clear_error(void) {
  tls_error.pub.status = NVFP4RT_STATUS_OK;
  tls_error.pub.cu_result = 0;
  tls_error.pub.file = "";
  tls_error.pub.line = 0;
  tls_error.call[0] = 0;
  tls_error.message[0] = 0;
}

static nvfp4rt_status record(nvfp4rt_status st, int cu, const char *call, const char *file,
                             int line, const char *fmt, va_list ap) {
  const char *base = strrchr(file, '/');
  tls_error.pub.status = st;
  tls_error.pub.cu_result = cu;
  tls_error.pub.file = base ? base + 1 : file;
  tls_error.pub.line = line;
  snprintf(tls_error.call, sizeof tls_error.call, "%s", call ? call : "");
  vsnprintf(tls_error.message, sizeof tls_error.message, fmt, ap);
  return st;
}

nvfp4rt_status nvfp4rt_set_error_(nvfp4rt_status st, const char *file, int line,
                                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(st, 0, "", file, line, fmt, ap);
  va_end(ap);
  return st;
}

nvfp4rt_status nvfp4rt_set_cu_error_(CUresult r, const char *call, const char *file, int line,
                                     const char *fmt, ...) {
  char extra[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(extra, sizeof extra, fmt, ap);
  va_end(ap);
  const char *ename = "?";
  if (nvfp4rt_cu.cuGetErrorName_ && nvfp4rt_cu.cuGetErrorName_(r, &ename) != CUDA_SUCCESS)
    ename = "?";
  if (!ename) ename = "?";
  nvfp4rt_status st = (r == CUDA_ERROR_OUT_OF_MEMORY) ? NVFP4RT_STATUS_OUT_OF_MEMORY
                                                      : NVFP4RT_STATUS_CUDA_ERROR;
  const char *base = strrchr(file, '/');
  tls_error.pub.status = st;
  tls_error.pub.cu_result = (int)r;
  tls_error.pub.file = base ? base + 1 : file;
  tls_error.pub.line = line;
  snprintf(tls_error.call, sizeof tls_error.call, "%s", call);
  snprintf(tls_error.message, sizeof tls_error.message, "%s failed: %s (CUresult %d)%s%s [%s:%d]",
           call, ename, (int)r, extra[0] ? ": " : "", extra, tls_error.pub.file, line);
  return st;
}

void nvfp4rt_set_error_detail_(int cu_result, const char *call) {
  tls_error.pub.cu_result = cu_result;
  snprintf(tls_error.call, sizeof tls_error.call, "%s", call ? call : "");
}
