#!/bin/bash
# mem.stream's kernels must stay loops: no call to memcpy/memset in their machine code
# (GCC turns the copy loop into memcpy unless told not to), in each of the clones the
# CPU's widest vector unit is chosen among at run time, the AVX-512 one on 64-byte zmm
# registers and the AVX2 one on 32-byte ymm ones.
. "$(dirname "$0")/lib.sh"
command -v objdump >/dev/null || { fail "objdump (binutils) not found"; finish; }
for kernel in stream_{copy,scale,add,triad}.{default,avx2,avx512f}; do
    objdump -d --no-show-raw-insn "$VP" --disassemble="$kernel" >"$WORK/asm" 2>&1
    grep -q "<$kernel>:" "$WORK/asm" || fail "$kernel not found in the binary"
    grep -qE "call|jmp .*<(memcpy|memset|memmove)" "$WORK/asm" && fail "$kernel calls a library routine: $(grep -E 'call|jmp' "$WORK/asm")"
    grep -qE "mov(ap|up|sd|dqa|dqu)" "$WORK/asm" || fail "$kernel has no loads or stores of doubles"
    case $kernel in
    *.avx512f) grep -q "%zmm" "$WORK/asm" || fail "$kernel uses no 64-byte zmm register" ;;
    *.avx2) grep -q "%ymm" "$WORK/asm" || fail "$kernel uses no 32-byte ymm register" ;;
    esac
done
finish
