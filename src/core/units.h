/* Parsing and formatting of the quantities users type and read: sizes, durations,
 * counts, job-count specs, CPU lists, and human-readable values with units. */
#ifndef VP_UNITS_H
#define VP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each parser returns 0 on success and -1 when the text is not of the accepted form
 * (empty, trailing garbage, negative, overflow). Parsers never print. */

/* "4096", "64k", "256m", "1g", "2t" (k/m/g/t are powers of 1024, case-insensitive,
 * an optional trailing 'b' or "ib" is accepted: "64KiB"). */
int vp_parse_size(const char *text, uint64_t *bytes);

/* "10", "2.5s", "500ms", "100us", "250ns", "2min": seconds as a double > 0 or == 0. */
int vp_parse_duration(const char *text, double *seconds);

/* A plain decimal whole number, optionally with k/m/g suffix meaning 10^3/10^6/10^9
 * ("4m" accesses = 4000000). */
int vp_parse_count(const char *text, uint64_t *value);

/* Job-count spec: "4", "1,2,4", "1..8", "1..4,8". Values 1..max_jobs, strictly
 * increasing after expansion; at most cap values. */
int vp_parse_jobs_spec(const char *text, unsigned max_jobs, unsigned *counts, size_t cap,
                       size_t *n);

/* CPU list: "0,2,4-6". Values 0..max_cpu inclusive, duplicates refused, order kept. */
int vp_parse_cpu_list(const char *text, unsigned max_cpu, int *cpus, size_t cap, size_t *n);

/* How byte rates and amounts are shown (never stored: the JSON stays in bytes). IEC:
 * "12.3 GiB/s", "256 MiB"; SI: "13.2 GB/s", "268 MB"; BITS: rates in bits, "106 Gb/s"
 * (amounts in SI bytes); FIELD (the default): as each field reads them, in the style its
 * benchmark declares (bits for the network, SI for disks, IEC for the rest). Nothing here
 * keeps a style: each caller says which one a figure is shown in. */
enum vp_unit_style { VP_UNITS_FIELD, VP_UNITS_IEC, VP_UNITS_SI, VP_UNITS_BITS };

/* "field", "iec", "si", "bits" (--units); 0, or -1 for anything else. */
int vp_units_parse(const char *text, enum vp_unit_style *style);
/* The name vp_units_parse reads back. */
const char *vp_units_name(enum vp_unit_style style);
/* The style a figure is shown in: chosen (--units) unless that is FIELD, else field, the
 * style its benchmark declares (bench.h's units; FIELD there: IEC). */
enum vp_unit_style vp_units_pick(enum vp_unit_style chosen, enum vp_unit_style field);

/* Human formatting by unit: "B/s" -> "12.3 GiB/s" (in style; FIELD: IEC), "s" -> "85.2
 * ns", "B" -> "256 MiB", "ops/s" -> "1.23 G/s", "%" -> "12.5 %", anything else: "%.4g
 * unit". */
void vp_format_value(double value, const char *unit, enum vp_unit_style style, char *buf,
                     size_t len);

/* Formats a duration given in seconds with an auto-chosen unit (ns, us, ms, s). */
void vp_format_seconds(double seconds, char *buf, size_t len);

/* Formats a byte count with a binary prefix: "256 MiB", "16 KiB", "100 B". */
void vp_format_bytes(double bytes, char *buf, size_t len);

#endif
