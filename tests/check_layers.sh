#!/bin/bash
# The layering docs/architecture.md describes, checked on the sources: a
# file under src/LAYER/ may include only headers of its own layer or of layers listed
# before it here, so core/ includes nothing of ours and nothing reaches upwards. And no
# two files reach each other: a file (its .c and .h together) that includes another's
# header may not be included by it, nor by anything it reaches (tsort finds the loop).
# render/ includes no analysis/ header and no bench/ one but in roff.c (it formats what
# analysis decided). Prints each include that breaks the order, and each loop, and exits 1
# when there is one.
set -u
cd "$(dirname "$0")/../src"
layers=(core net bench engine store analysis render env run cmd mpi)
status=0
for ((i = 0; i < ${#layers[@]}; i++)); do
    layer=${layers[$i]}
    allowed=" ${layers[*]:0:$((i + 1))} "
    for file in "$layer"/*.[ch]; do
        while IFS= read -r included; do
            [[ "$allowed" == *" ${included%%/*} "* ]] && continue
            [ "$included" = vp_features.h ] && continue # the build's, no layer's
            echo "src/$file includes \"$included\": $layer may include only:$allowed"
            status=1
        done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
    done
done
# render/ only formats what analysis decided (analysis/shown.c): it includes no analysis
# header, and a benchmark's table only where it writes the tables' manual (roff.c)
for file in render/*.[ch]; do
    while IFS= read -r included; do
        case "$included" in
        analysis/*) ;;
        bench/*) [ "$file" = render/roff.c ] && continue ;;
        *) continue ;;
        esac
        echo "src/$file includes \"$included\": render formats what analysis decided (analysis/shown.h)"
        status=1
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done
# the include graph between files (a.c and a.h are one file, a), for tsort
for file in */*.[ch]; do
    sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$file" | while IFS= read -r included; do
        [ "${file%.*}" != "$included" ] && echo "${file%.*} $included"
    done
done >/tmp/check_layers.$$
if ! tsort /tmp/check_layers.$$ >/dev/null 2>/tmp/check_layers.$$.loop; then
    echo "an include cycle between files: $(grep -v 'input contains a loop' /tmp/check_layers.$$.loop | sed 's/^tsort: //' | tr '\n' ' ')"
    status=1
fi
rm -f /tmp/check_layers.$$ /tmp/check_layers.$$.loop
[ $status -eq 0 ] && echo "ok: layers (${layers[*]}), no include cycle"
exit $status
