#!/bin/bash
# mem.stream's kernels must stay loops: no call to memcpy/memset in their machine code
# (GCC turns the copy loop into memcpy unless told not to).
. "$(dirname "$0")/lib.sh"
command -v objdump >/dev/null || { fail "objdump (binutils) not found"; finish; }
for kernel in stream_copy stream_scale stream_add stream_triad; do
    objdump -d --no-show-raw-insn "$VP" --disassemble="$kernel" >"$WORK/asm" 2>&1
    grep -q "<$kernel>:" "$WORK/asm" || fail "$kernel not found in the binary"
    grep -qE "call|jmp .*<(memcpy|memset|memmove)" "$WORK/asm" && fail "$kernel calls a library routine: $(grep -E 'call|jmp' "$WORK/asm")"
    grep -qE "mov(ap|up|sd|dqa|dqu)" "$WORK/asm" || fail "$kernel has no loads or stores of doubles"
done
finish
