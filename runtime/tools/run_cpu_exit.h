/* run_cpu_exit.h — the exit codes of nvfp4-run --cpu, shared by its grouped
 * (nvfp4-run-cpu.c) and MoE (nvfp4-run-cpu-moe.c) modes, and the mapping of a simulation's
 * outcome and the C check onto them. */
#ifndef NVFP4_RUN_CPU_EXIT_H
#define NVFP4_RUN_CPU_EXIT_H

#include <stdio.h>

#include "nvfp4sim.h"

enum { CPU_PASS = 0, CPU_CHECK_FAILED = 1, CPU_ERROR = 2, CPU_DEADLOCK = 3, CPU_HAZARD = 4 };

/* True when the simulation ran to its end, so that C can be checked. */
static inline int cpu_run_finished(nvfp4sim_outcome o) {
  return o != NVFP4SIM_DEADLOCK && o != NVFP4SIM_FAULT;
}

/* The exit code of a launch: deadlock, then hazard or illegal operation, then the check. */
static inline int cpu_exit_code(nvfp4sim_outcome o, int pass) {
  return o == NVFP4SIM_DEADLOCK                           ? CPU_DEADLOCK
         : o == NVFP4SIM_HAZARD || o == NVFP4SIM_FAULT ? CPU_HAZARD
         : pass                                         ? CPU_PASS
                                                        : CPU_CHECK_FAILED;
}

/* A kernel launched with programmatic dependent launch (NVFP4_META_FLAG_PDL): in how many
 * of the grid's CTAs a thread executed griddepcontrol.wait and launch_dependents (the
 * simulator reports every global access no wait is ordered before). */
static inline void run_cpu_print_pdl(const nvfp4_kernel_metadata *meta, const nvfp4sim_result *res,
                                     uint32_t grid) {
  if (!(meta->flags & NVFP4_META_FLAG_PDL) || !cpu_run_finished(res->outcome)) return;
  printf("pdl      griddepcontrol.wait in %u of %u CTAs, launch_dependents in %u\n",
         res->griddep_wait_ctas, grid, res->griddep_launch_ctas);
}

#endif /* NVFP4_RUN_CPU_EXIT_H */
