/* Ptxas.c — PTX -> cubin with the CUDA toolkit's ptxas (Ptxas.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "Ptxas.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "TargetLog.h"

extern char **environ;

void nvfp4PtxasPath(const char *toolkit, char *out, size_t size) {
  snprintf(out, size, "%s/bin/ptxas", toolkit);
}

static void *readAll(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    ((char *)buf)[n] = 0;
    *size = (size_t)n;
  }
  return buf;
}

/* The architecture ptxas assembles for: the PTX's own `.target sm_XXa` line (the gpu.module
 * target decides it: sm_100a, or sm_90a for native Hopper kernels and the emulation). */
static void ptxArch(const char *ptx, const char *fallback, char *out, size_t size) {
  const char *t = ptx ? strstr(ptx, "\n.target ") : NULL;
  if (t) {
    t += 9;
    size_t n = 0;
    while (t[n] && t[n] != '\n' && t[n] != ',' && t[n] != ' ' && n + 1 < size) ++n;
    if (n > 0 && n < 16) {
      snprintf(out, size, "%.*s", (int)n, t);
      return;
    }
  }
  snprintf(out, size, "%s", fallback);
}

bool nvfp4IsCudaElf(const void *image, size_t size) {
  const unsigned char *e = image;
  return size >= 64 && memcmp(e, "\177ELF", 4) == 0 && e[4] == 2 && e[5] == 1 &&
         (e[18] | e[19] << 8) == 190;
}

/* Starts ptxas on at most `jobs` of this thread's CPUs (the child inherits the spawning
 * thread's affinity, which is put back at once). */
static int spawnOnCpus(pid_t *pid, const char *path, posix_spawn_file_actions_t *fa,
                       char **args, int jobs) {
  cpu_set_t mine, some;
  bool narrowed = false;
  if (sched_getaffinity(0, sizeof mine, &mine) == 0 && jobs < CPU_COUNT(&mine)) {
    CPU_ZERO(&some);
    for (int cpu = 0, taken = 0; cpu < CPU_SETSIZE && taken < jobs; ++cpu)
      if (CPU_ISSET(cpu, &mine)) {
        CPU_SET(cpu, &some);
        ++taken;
      }
    narrowed = sched_setaffinity(0, sizeof some, &some) == 0;
  }
  int rc = posix_spawn(pid, path, fa, NULL, args, environ);
  if (narrowed) sched_setaffinity(0, sizeof mine, &mine);
  return rc;
}

typedef struct TempFiles { char dir[32], ptx[64], cubin[64], log[64]; } TempFiles;

static bool makeTemp(TempFiles *t) {
  snprintf(t->dir, sizeof t->dir, "/tmp/nvfp4-XXXXXX");
  if (!mkdtemp(t->dir)) return false;
  snprintf(t->ptx, sizeof t->ptx, "%s/k.ptx", t->dir);
  snprintf(t->cubin, sizeof t->cubin, "%s/k.cubin", t->dir);
  snprintf(t->log, sizeof t->log, "%s/ptxas.log", t->dir);
  return true;
}

static void removeTemp(const TempFiles *t) {
  unlink(t->ptx);
  unlink(t->cubin);
  unlink(t->log);
  rmdir(t->dir);
}

static bool writeAll(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* Runs the command; its output goes to the log. */
static bool runLogged(const Nvfp4PtxasJob *job, const char *ptxas, char **args,
                      const TempFiles *t, double *cpuMs, char **log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, t->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = spawnOnCpus(&pid, ptxas, &fa, args, job->jobs);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    nvfp4Logf(log, "nvfp4: cannot run %s: %s (install the CUDA toolkit or pass its path)\n",
              ptxas, strerror(rc));
    return false;
  }
  int status = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno == EINTR) continue;
    nvfp4Logf(log, "nvfp4: cannot wait for %s: %s\n", ptxas, strerror(errno));
    return false;
  }
  *cpuMs = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
  size_t logSize = 0;
  char *text = readAll(t->log, &logSize);
  if (text) {
    nvfp4LogAppend(log, text, logSize);
    free(text);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    nvfp4Logf(log, "nvfp4: ptxas failed\n");
    return false;
  }
  return true;
}

bool nvfp4RunPtxas(const Nvfp4PtxasJob *job, void **cubin, size_t *cubinSize, double *cpuMs,
                   char **log) {
  *cubin = NULL;
  *cubinSize = 0;
  *cpuMs = 0;
  TempFiles t;
  if (!makeTemp(&t)) {
    nvfp4Logf(log, "nvfp4: cannot create a temporary directory\n");
    return false;
  }
  char ptxas[1024], arch[40], target[24], split[16];
  nvfp4PtxasPath(job->toolkit, ptxas, sizeof ptxas);
  ptxArch(job->ptx, job->defaultArch, target, sizeof target);
  snprintf(arch, sizeof arch, "-arch=%s", target);
  snprintf(split, sizeof split, "%u", job->kernels);
  char *args[12];
  int n = 0;
  args[n++] = ptxas;
  args[n++] = arch;
  args[n++] = "-O3";
  if (job->kernels > 1) {
    args[n++] = "-split-compile";
    args[n++] = split;
  }
  if (job->verbose) args[n++] = "-v";
  args[n++] = t.ptx;
  args[n++] = "-o";
  args[n++] = t.cubin;
  args[n] = NULL;
  bool ok = writeAll(t.ptx, job->ptx, job->ptxSize);
  if (!ok) nvfp4Logf(log, "nvfp4: cannot write %s\n", t.ptx);
  ok = ok && runLogged(job, ptxas, args, &t, cpuMs, log);
  if (ok) {
    *cubin = readAll(t.cubin, cubinSize);
    if (!*cubin) {
      nvfp4Logf(log, "nvfp4: ptxas wrote no cubin\n");
      ok = false;
    } else if (!nvfp4IsCudaElf(*cubin, *cubinSize)) {
      nvfp4Logf(log, "nvfp4: %s exited 0 but its output (%zu bytes) is not a CUDA ELF64 cubin\n",
                ptxas, *cubinSize);
      free(*cubin);
      *cubin = NULL;
      *cubinSize = 0;
      ok = false;
    }
  }
  removeTemp(&t);
  return ok;
}
