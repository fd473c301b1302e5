/* fiber.c — cooperative fibers for the simulated threads: mmap'ed stacks with a guard
 * page and a context switch that saves only the callee-saved registers (x86-64 System V:
 * rbx, rbp, r12-r15, plus the stack pointer; aarch64 AAPCS64: x19-x30, d8-d15, sp). A
 * switch costs a few nanoseconds, so a simulated thread can give up the host thread at
 * every barrier or wait. Other hosts fall back to ucontext. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* Under AddressSanitizer a stack is reused by a new fiber while the frames of the fiber
 * that last ran on it (stopped, never returned) still have their redzones poisoned in the
 * shadow: a new fiber starts on clean shadow. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NVFP4SIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NVFP4SIM_ASAN 1
#endif
#ifdef NVFP4SIM_ASAN
#include <sanitizer/asan_interface.h>
#define FRESH_STACK(stack, bytes) ASAN_UNPOISON_MEMORY_REGION(stack, bytes)
#else
#define FRESH_STACK(stack, bytes) ((void)(stack), (void)(bytes))
#endif

/* n stacks in one mapping (one munmap, one TLB flush for all), each of `bytes` (a multiple
 * of the page size) above a guard page of its own. */
void *sim_fiber_stacks_alloc(uint32_t n, size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), span = bytes + page;
  char *p = mmap(NULL, span * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  for (uint32_t i = 0; i < n; ++i) /* overflow faults instead of corrupting the next stack */
    mprotect(p + span * i, page, PROT_NONE);
  return p;
}

void *sim_fiber_stack_at(void *stacks, uint32_t i, size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (char *)stacks + (bytes + page) * i + page;
}

void sim_fiber_stacks_free(void *stacks, uint32_t n, size_t bytes) {
  if (!stacks) return;
  munmap(stacks, (bytes + (size_t)sysconf(_SC_PAGESIZE)) * n);
}

#if defined(__x86_64__)

/* sim_fiber_switch(void **save_sp, void *to_sp): pushes the callee-saved registers, stores
 * the stack pointer, loads the other one and pops its registers; `ret` resumes it. */
__asm__(".text\n"
        ".globl nvfp4sim_ctx_switch\n"
        ".type nvfp4sim_ctx_switch,@function\n"
        "nvfp4sim_ctx_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size nvfp4sim_ctx_switch, .-nvfp4sim_ctx_switch\n"
        /* first entry of a fiber: r12 = entry function, r13 = its argument */
        ".globl nvfp4sim_ctx_start\n"
        ".type nvfp4sim_ctx_start,@function\n"
        "nvfp4sim_ctx_start:\n"
        "  movq %r13, %rdi\n"
        "  callq *%r12\n"
        "  ud2\n"
        ".size nvfp4sim_ctx_start, .-nvfp4sim_ctx_start\n");

void nvfp4sim_ctx_switch(void **save_sp, void *to_sp);
void nvfp4sim_ctx_start(void);

void *sim_fiber_prepare(void *stack, size_t bytes, void (*entry)(void *), void *arg) {
  FRESH_STACK(stack, bytes);
  uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
  /* after the six pops and `ret`, rsp = top - 16: 16-byte aligned at the call */
  uint64_t *sp = (uint64_t *)(top - 72);
  memset(sp, 0, 72);
  sp[0] = 0;                      /* r15 */
  sp[1] = 0;                      /* r14 */
  sp[2] = (uint64_t)(uintptr_t)arg;   /* r13 */
  sp[3] = (uint64_t)(uintptr_t)entry; /* r12 */
  sp[4] = 0;                      /* rbx */
  sp[5] = 0;                      /* rbp */
  sp[6] = (uint64_t)(uintptr_t)nvfp4sim_ctx_start;
  return sp;
}

void sim_fiber_switch(void **save_sp, void *to_sp) { nvfp4sim_ctx_switch(save_sp, to_sp); }

#elif defined(__aarch64__)

__asm__(".text\n"
        ".globl nvfp4sim_ctx_switch\n"
        ".type nvfp4sim_ctx_switch,%function\n"
        "nvfp4sim_ctx_switch:\n"
        "  sub sp, sp, #176\n"
        "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  mov x9, sp\n  str x9, [x0]\n  mov sp, x1\n"
        "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #176\n"
        "  ret\n"
        ".globl nvfp4sim_ctx_start\n"
        ".type nvfp4sim_ctx_start,%function\n"
        "nvfp4sim_ctx_start:\n"
        "  mov x0, x20\n  blr x19\n  brk #0\n");

void nvfp4sim_ctx_switch(void **save_sp, void *to_sp);
void nvfp4sim_ctx_start(void);

void *sim_fiber_prepare(void *stack, size_t bytes, void (*entry)(void *), void *arg) {
  FRESH_STACK(stack, bytes);
  uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)(top - 176);
  memset(sp, 0, 176);
  sp[0] = (uint64_t)(uintptr_t)entry; /* x19 */
  sp[1] = (uint64_t)(uintptr_t)arg;   /* x20 */
  sp[11] = (uint64_t)(uintptr_t)nvfp4sim_ctx_start; /* x30 */
  return sp;
}

void sim_fiber_switch(void **save_sp, void *to_sp) { nvfp4sim_ctx_switch(save_sp, to_sp); }

#else /* ucontext */
#include <ucontext.h>

typedef struct uctx_fiber { ucontext_t uc; void (*entry)(void *); void *arg; } uctx_fiber;

static void uctx_trampoline(unsigned hi, unsigned lo) {
  uctx_fiber *u = (uctx_fiber *)(((uintptr_t)hi << 32) | lo);
  u->entry(u->arg);
  abort();
}

void *sim_fiber_prepare(void *stack, size_t bytes, void (*entry)(void *), void *arg) {
  FRESH_STACK(stack, bytes);
  uctx_fiber *u = (uctx_fiber *)stack;
  getcontext(&u->uc);
  u->entry = entry;
  u->arg = arg;
  u->uc.uc_stack.ss_sp = (char *)stack + sizeof *u;
  u->uc.uc_stack.ss_size = bytes - sizeof *u;
  u->uc.uc_link = NULL;
  uintptr_t p = (uintptr_t)u;
  makecontext(&u->uc, (void (*)(void))uctx_trampoline, 2, (unsigned)(p >> 32), (unsigned)p);
  return u;
}

/* The scheduler's side has no uctx_fiber of its own: it saves into a static one. */
void sim_fiber_switch(void **save_sp, void *to_sp) {
  static uctx_fiber main_ctx;
  uctx_fiber *from = *save_sp ? (uctx_fiber *)*save_sp : &main_ctx;
  *save_sp = from;
  swapcontext(&from->uc, &((uctx_fiber *)to_sp)->uc);
}
#endif
