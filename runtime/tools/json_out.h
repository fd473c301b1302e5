/* json_out.h — the JSON output helpers of nvfp4-run's modes (run_common.h, all_variants.c,
 * fresh_sets.c): every string that comes from a path, a cubin's metadata or the driver is
 * printed through json_str, every measured double through json_num, so that --json output
 * is valid JSON whatever those hold. */
#ifndef NVFP4_JSON_OUT_H
#define NVFP4_JSON_OUT_H

#include <math.h>
#include <stdio.h>

/* Prints `s` as a JSON string (quotes, backslashes and control characters escaped). */
static inline void json_str(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p < 0x20 || *p == 0x7f) printf("\\u%04x", *p);
    else putchar(*p);
  }
  putchar('"');
}
/* A JSON number, or null for NaN/Inf (which JSON cannot represent). */
static inline const char *json_num(char buf[40], double v, int precision) {
  if (isfinite(v)) snprintf(buf, 40, "%.*g", precision, v);
  else snprintf(buf, 40, "null");
  return buf;
}

#endif /* NVFP4_JSON_OUT_H */
