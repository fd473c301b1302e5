/* print_diagnostic.h — shared by the C API test programs: text and diagnostics of the C
 * API printed to standard output ("diagnostic: MESSAGE" per diagnostic), in order with the
 * rest of the program's output, for FileCheck. */
#ifndef NVFP4_TEST_CAPI_PRINT_DIAGNOSTIC_H
#define NVFP4_TEST_CAPI_PRINT_DIAGNOSTIC_H

#include <stdio.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Support.h"

/* An MlirStringCallback writing to standard output. */
static inline void printText(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stdout);
}

/* A diagnostic handler printing each diagnostic on a line of its own, and handling it. */
static inline MlirLogicalResult printDiagnostic(MlirDiagnostic d, void *user) {
  (void)user;
  fputs("diagnostic: ", stdout);
  mlirDiagnosticPrint(d, printText, NULL);
  fputc('\n', stdout);
  return mlirLogicalResultSuccess();
}

#endif /* NVFP4_TEST_CAPI_PRINT_DIAGNOSTIC_H */
