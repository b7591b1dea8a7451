/* base/clock.c — monotonic and CPU clocks. */
#include "base/lm_base.h"

#include <time.h>

static int64_t read_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0)
    return 0;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t lm_now_ns(void) {
  return read_ns(CLOCK_MONOTONIC);
}
int64_t lm_now_us(void) {
  return read_ns(CLOCK_MONOTONIC) / 1000;
}
int64_t lm_cpu_time_us(void) {
  return read_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000;
}
