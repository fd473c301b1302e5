/* busy_sms.h — nvfp4-run's --busy-sms N: the correctness launch runs while a kernel on
 * another stream holds N of the GPU's SMs, as under MPS, in a green context or beside other
 * work. Each of the busy kernel's N CTAs takes all the shared memory a CTA may have, so no
 * CTA of the kernel under test fits beside one; they stay until released or until their
 * deadline. A kernel whose CTAs wait for one another (a grid barrier, a stream-K owner
 * spinning on the CTAs after it) needs SMs that the busy kernel holds: it cannot complete
 * before the deadline, and the run fails.
 *
 * The mode checks itself: a grid barrier over one CTA per SM (the same shared memory) must
 * complete on the idle GPU and must not complete while the N SMs are held. */
#ifndef NVFP4_RUN_BUSY_SMS_H
#define NVFP4_RUN_BUSY_SMS_H

#include "nvfp4rt.h"

typedef struct busy_sms busy_sms;

/* Loads the busy kernels (PTX, through the driver the runtime uses), runs the idle-GPU
 * control, starts the busy kernel on N SMs, waits until all N CTAs run and runs the held
 * control. 0 and *out, or an nvfp4-run exit code (the reason printed). */
int busy_sms_start(nvfp4rt_context *ctx, int n, busy_sms **out);

/* After the kernel under test completed (its stream synchronised): releases the busy kernel
 * and checks that it held its SMs until then. 0, or EXIT_CHECK_FAILED (the kernel could only
 * complete once the busy kernel gave up: it needed the held SMs) or EXIT_ERROR; the report
 * printed either way, with `elapsed_ms` the kernel's time beside the busy kernel. Frees b. */
int busy_sms_stop(busy_sms *b, double elapsed_ms);

#endif /* NVFP4_RUN_BUSY_SMS_H */
