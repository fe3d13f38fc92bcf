/* A member's console log's last lines (console.h). */
#include "env/console.h"

#include <stdio.h>
#include <string.h>

#include "core/printable.h"

void vp_console_tail(const char *path, const char *name)
{
    FILE *console = fopen(path, "r");
    if (!console)
        return;
    char lines[5][200];
    size_t count = 0;
    while (fgets(lines[count % 5], sizeof lines[0], console))
        count++;
    fclose(console);
    fprintf(stderr, "virtperf: %s's console ended with:\n", name);
    for (size_t i = count > 5 ? count - 5 : 0; i < count; i++) {
        char shown[sizeof lines[0]];
        lines[i % 5][strcspn(lines[i % 5], "\r\n")] = '\0';
        fprintf(stderr, "  %s\n", vp_printable(lines[i % 5], shown, sizeof shown));
    }
}
