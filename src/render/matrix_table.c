/* Source x destination tables on the terminal (matrix_table.h). */
#include "render/matrix_table.h"

#include "core/json.h"
#include "core/units.h"
#include "render/table.h"

void vp_print_matrix(FILE *out, const json_t *matrix, const char *indent,
                     enum vp_unit_style units)
{
    const char *unit = vp_json_text(matrix, "unit");
    enum vp_unit_style style = vp_json_unit_style(matrix, units);
    long long jobs = (long long)json_integer_value(json_object_get(matrix, "jobs"));
    fprintf(out, "%s%s %s, %lld job%s (%s is better)\n%s%-20s", indent,
            vp_json_text(matrix, "bench"), vp_json_text(matrix, "metric"), jobs,
            jobs == 1 ? "" : "s", vp_json_text(matrix, "better"), indent,
            "source \\ destination");
    size_t c, r;
    const json_t *item;
    char name[200];
    json_array_foreach(json_object_get(matrix, "destinations"), c, item)
        fprintf(out, " %22s", vp_printable(json_string_value(item), name, sizeof name));
    fputc('\n', out);
    json_array_foreach(json_object_get(matrix, "sources"), r, item) {
        fprintf(out, "%s%-20s", indent, vp_printable(json_string_value(item), name, sizeof name));
        const json_t *value;
        json_array_foreach(json_array_get(json_object_get(matrix, "values"), r), c, value) {
            char text[32] = "-";
            if (json_is_number(value))
                vp_format_value(json_number_value(value), unit, style, text, sizeof text);
            fprintf(out, " %22s", text);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}
