#!/bin/bash
# The layering the README's Architecture section describes, checked on the sources: a
# file under src/LAYER/ may include only headers of its own layer or of layers listed
# before it here, so core/ includes nothing of ours and nothing reaches upwards. Prints
# each include that breaks the order and exits 1 when there is one.
set -u
cd "$(dirname "$0")/../src"
layers=(core net bench engine store analysis render cmd mpi)
status=0
for ((i = 0; i < ${#layers[@]}; i++)); do
    layer=${layers[$i]}
    allowed=" ${layers[*]:0:$((i + 1))} "
    for file in "$layer"/*.[ch]; do
        while IFS= read -r included; do
            [[ "$allowed" == *" ${included%%/*} "* ]] && continue
            echo "src/$file includes \"$included\": $layer may include only:$allowed"
            status=1
        done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
    done
done
[ $status -eq 0 ] && echo "ok: layers (${layers[*]})"
exit $status
