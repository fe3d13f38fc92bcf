/* The manual page's generated sections (RUN OPTIONS from run's flag table, BENCHMARKS
 * and PRESETS), written in roff from the
 * benchmark and preset tables, so docs/virtperf.1 can never list an option the code does
 * not have or miss one it has (`virtperf list --man`; tests/system/test_docs.sh). */
#ifndef VP_ROFF_H
#define VP_ROFF_H

#include <stdio.h>

void vp_roff_benchmarks(FILE *out);
/* One flag's paragraph: --NAME ARGUMENT, then roff text as it is (vp_roff_flag) or plain
 * text escaped (vp_roff_flag_text). */
void vp_roff_flag(FILE *out, const char *name, const char *argument, const char *roff);
void vp_roff_flag_text(FILE *out, const char *name, const char *argument, const char *text);

#endif
