/* The manual page's BENCHMARKS and PRESETS sections, written in roff from the
 * benchmark and preset tables, so docs/virtperf.1 can never list an option the code does
 * not have or miss one it has (`virtperf list --man`; tests/system/test_docs.sh). */
#ifndef VP_ROFF_H
#define VP_ROFF_H

#include <stdio.h>

void vp_roff_benchmarks(FILE *out);

#endif
