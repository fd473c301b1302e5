/* test_util.h — tiny check macros shared by the runtime test binaries: count checks,
 * print each failure with its line, summarise at the end. */
#ifndef NVFP4RT_TEST_UTIL_H
#define NVFP4RT_TEST_UTIL_H

#include <stdio.h>

static int t_checks, t_failures;

#define T_CHECK(cond, ...)                                                                 \
  do {                                                                                     \
    t_checks++;                                                                            \
    if (!(cond)) {                                                                         \
      t_failures++;                                                                        \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
      printf(__VA_ARGS__);                                                                 \
      printf("\n");                                                                        \
    }                                                                                      \
  } while (0)

static int t_summary(const char *suite) {
  printf("%s: %d checks, %d failures\n", suite, t_checks, t_failures);
  if (!t_failures) printf("%s: PASS\n", suite);
  return t_failures != 0;
}


/* Checks that a runtime call returns `want` (tests that include nvfp4rt.h). */
#define EXPECT_STATUS(expr, want)                                                          \
  do {                                                                                     \
    nvfp4rt_status s_ = (expr);                                                            \
    T_CHECK(s_ == (want), "got %s want %s (%s)", nvfp4rt_status_string(s_),                \
            nvfp4rt_status_string(want), nvfp4rt_last_error_message());                    \
    if (s_ != NVFP4RT_STATUS_OK) printf("  %-32s %s\n", nvfp4rt_status_string(s_),         \
                                        nvfp4rt_last_error_message());                     \
  } while (0)

#endif
