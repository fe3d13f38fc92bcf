/* Background load for --load: processes that keep every CPU, the memory bus or the disk
 * busy while a time benchmark measures (the CNAF 2007 study's guest clocks fell behind "in situazioni di
 * grosso carico"). Started in the parent before the jobs fork, stopped after the result;
 * they die with virtperf and leave no file behind. */
#ifndef VP_LOAD_H
#define VP_LOAD_H

#include <stddef.h>

#include <jansson.h>

#include "core/options.h"

/* The two options a benchmark adds to its table to offer a load. */
#define VP_LOAD_OPTIONS                                                                     \
    { "load", VP_OPT_CHOICE, "none", 0, 0, "none|cpu|mem|io",                               \
      "background load while measuring: cpu spins, mem copies 64 MiB buffers, io writes "   \
      "and fdatasyncs an unlinked file in /var/tmp" },                                      \
    { "load-jobs", VP_OPT_COUNT, "0", 0, 1024, NULL,                                        \
      "load processes, one pinned per CPU in turn (0: one per CPU this run may use)" }

/* Starts count processes of kind "cpu", "mem" or "io" ("none": nothing). */
int vp_load_start(const char *kind, unsigned count, char *err, size_t err_len);
/* Kills and reaps the processes vp_load_start started. */
void vp_load_stop(void);
/* How many load processes run now (bench/conditions.c records them on the result, so
 * the run queue they add is not taken for load virtperf did not start). */
unsigned vp_load_running(void);

/* The --load a stored result ran under ("none" for results from before --load existed). */
const char *vp_load_of(const json_t *result);

#endif
