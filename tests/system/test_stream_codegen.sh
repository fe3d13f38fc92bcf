#!/bin/bash
# mem.stream's kernels and mem.write's wide stores must stay loops: no call to
# memcpy/memset in their machine code (GCC turns a copy or fill loop into one unless told
# not to), in each of the clones the CPU's widest vector unit is chosen among at run
# time, the AVX-512 one on 64-byte zmm registers and the AVX2 one on 32-byte ymm ones;
# and the result names the clone this CPU ran, as its flags say.
. "$(dirname "$0")/lib.sh"
command -v objdump >/dev/null || { fail "objdump (binutils) not found"; finish; }
for kernel in {stream_{copy,scale,add,triad},write_wide}.{default,avx2,avx512f}; do
    objdump -d --no-show-raw-insn "$VP" --disassemble="$kernel" >"$WORK/asm" 2>&1
    grep -q "<$kernel>:" "$WORK/asm" || fail "$kernel not found in the binary"
    grep -qE "call|jmp .*<(memcpy|memset|memmove)" "$WORK/asm" && fail "$kernel calls a library routine: $(grep -E 'call|jmp' "$WORK/asm")"
    grep -qE "mov(ap|up|sd|dqa|dqu|q)" "$WORK/asm" || fail "$kernel has no vector loads or stores"
    case $kernel in
    *.avx512f) grep -q "%zmm" "$WORK/asm" || fail "$kernel uses no 64-byte zmm register" ;;
    *.avx2) grep -q "%ymm" "$WORK/asm" || fail "$kernel uses no 32-byte ymm register" ;;
    esac
done
widest=sse2
grep -qw avx2 /proc/cpuinfo && widest=avx2
grep -qw avx512f /proc/cpuinfo && widest=avx512f
for mode in wide nt; do
    expect_status 0 "$VP" run mem.write --mode "$mode" --size 1m --passes 1 --reps 1 --warmup 0 \
        --db "$WORK/db" --json "$WORK/write.json"
    json_check "$WORK/write.json" "d['results'][0]['kernels']['target'] == '$widest'" \
        "mem.write --mode $mode: the kernels part should name $widest, the widest unit this CPU has"
done
expect_contains "$WORK/out" "kernels: $widest (the widest vector unit of this CPU, chosen at run time)"
expect_status 0 "$VP" run mem.write --mode byte --size 1m --passes 1 --reps 1 --warmup 0 \
    --db "$WORK/db" --json "$WORK/write.json"
json_check "$WORK/write.json" "'kernels' not in d['results'][0]" "mem.write --mode byte runs no vector kernel"
finish
