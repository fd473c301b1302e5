/* Ptxas.h — PTX -> cubin with the CUDA toolkit's ptxas (Ptxas.c). */
#ifndef NVFP4_TARGET_PTXAS_H
#define NVFP4_TARGET_PTXAS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Nvfp4PtxasJob {
  const char *toolkit;      /* root holding bin/ptxas */
  const char *ptx;          /* NUL-terminated */
  size_t ptxSize;
  const char *defaultArch;  /* when the PTX names no `.target` */
  unsigned kernels;         /* entry functions in the PTX */
  int jobs;                 /* CPUs ptxas may use (>= 1) */
  bool verbose;             /* -v: the report goes to the log */
} Nvfp4PtxasJob;

/* Runs ptxas -O3 on the job's PTX in a private temporary directory and reads the image back,
 * checked to be a CUDA ELF64. A family of kernels is assembled in parallel
 * (-split-compile with one thread per kernel, the process kept to `jobs` CPUs), so the
 * cubin never depends on `jobs` (ptxas records its options in the image). `cpuMs` is the
 * process' CPU time, all its threads. ptxas' output and every failure go to the log. */
bool nvfp4RunPtxas(const Nvfp4PtxasJob *job, void **cubin, size_t *cubinSize, double *cpuMs,
                   char **log);

/* A cubin is a little-endian ELF64 for EM_CUDA (190): anything else is not one. */
bool nvfp4IsCudaElf(const void *image, size_t size);

/* The ptxas a toolkit root holds: its path. */
void nvfp4PtxasPath(const char *toolkit, char *out, size_t size);

#endif /* NVFP4_TARGET_PTXAS_H */
