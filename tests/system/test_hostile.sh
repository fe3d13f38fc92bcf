#!/bin/bash
# A member is untrusted: containers that boot the tests' hostile member
# (tests/hostile/hostile_member.c, VIRTPERF_MEMBER_BINARY) in place of virtperf try to
# rewrite the engine's configuration, plant files beside their channel and a setuid file
# in /work, see the other members' channels, call themselves another member, and answer
# with escape sequences and a fake line of virtperf's; others lie in the protocol (a lead
# of INT64_MAX, a clock of INT64_MIN), a 20 MiB verdict or hello, a jobs' region with an
# affinity that does not end or 64 MiB long (the real agent behind a relay that spoils
# it). The host
# refuses or fails the run, names the liar, shows its words printable, runs nothing it
# could write, and leaves nothing. Then a
# containers run and a guests run killed with SIGKILL: no container or domain stays
# running, and the next run reclaims their directories. Also: output flags write through
# /dev/null and FIFOs, never replace them; virtperf-mpi refuses member flags. Runs under
# the sanitizers.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "podman's containers here need root"
command -v podman >/dev/null || skip "podman is not installed (scripts/deps.sh containers)"
HOSTILE=$(dirname "$VP")/hostile_member
[ -x "$HOSTILE" ] || fail "no hostile member beside $VP"
export VIRTPERF_CACHE="$WORK/cache"
cleanup() {
    remove_ended_containers
    rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"

# left_nothing PID WHAT: no container, channel directory or box of run PID
left_nothing() {
    local left
    left=$(podman ps -a --format '{{.Names}}' | grep "^virtperf-$1-")
    [ -z "$left" ] || fail "$2: containers left: $left"
    ! ls -d /tmp/virtperf-containers-*/virtperf-"$1"-* 2>/dev/null | grep -q . ||
        fail "$2: channel directories left: $(ls -d /tmp/virtperf-containers-*/virtperf-"$1"-*)"
    ! ls -d virtperf-box-* 2>/dev/null | grep -q . || fail "$2: boxes left: $(ls -d virtperf-box-*)"
}
no_terminal_control() { # FILE WHAT
    ! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$1" || fail "$2: a control byte reached the terminal: $(cat -v "$1")"
    ! grep -q '^virtperf: all results stored ok' "$1" || fail "$2: the member's fake line was shown as one"
}

# hostile_run WANT WHAT ARGS...: `virtperf run ARGS` with the hostile member (or $MEMBER)
# in its containers (RUN its pid, its output in out and err); fails unless it exits WANT
hostile_run() {
    local want=$1 what=$2 status
    shift 2
    VIRTPERF_MEMBER_BINARY=${MEMBER:-$HOSTILE} "$VP" run "$@" >"$WORK/out" 2>"$WORK/err" &
    RUN=$!
    wait $RUN
    status=$?
    [ $status -eq "$want" ] || fail "$what should exit $want, got $status: $(head -c 400 "$WORK/err" | cat -v)"
}

# --- the member that probes its host and answers with escapes
hostile_run 2 "a member's refusal" null --containers 2 --reps 1 --db "$WORK/h.db"
expect_contains "$WORK/err" "in container virtperf-$RUN-1: ?[2J?]0;owned?hostile:"
expect_contains "$WORK/err" "containers.conf Read-only file system"
expect_contains "$WORK/err" "beside the channel Read-only file system"
expect_contains "$WORK/err" "other channels seen 0"
expect_contains "$WORK/err" "/work nosuid"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "the member's verdict took more than one line: $(cat -v "$WORK/err")"
no_terminal_control "$WORK/err" "a member's verdict"
left_nothing "$RUN" "a hostile member's refusal"

# --- a lead of INT64_MAX, a clock of INT64_MIN: the liar is named, no overflow
for lie in lead clock; do
    hostile_run 1 "a member lying of its $lie" null --containers 2 --reps 1 --label "hostile-$lie" \
        --db "$WORK/h.db" --json "$WORK/$lie.json"
    python3 - "$WORK/$lie.json" "$lie" "$RUN" <<'PY' || fail "hostile-$lie: the result names the liar"
import json, sys
doc = json.load(open(sys.argv[1]))
result = doc["results"][0]
want = {"lead": "asked for a lead of 9223372036854775807 ns",
        "clock": "sent a clock reading of -9223372036854775808 ns"}[sys.argv[2]]
assert result["status"] == "failed", result["status"]
assert "container 1 (virtperf-%s-1): %s" % (sys.argv[3], want) in result["error"], result["error"]
names = [h["fingerprint"]["hostname"] for h in result["ranks"]["hosts"]]
assert names == ["virtperf-%s-1" % sys.argv[3], "virtperf-%s-2" % sys.argv[3]], names
assert result["ranks"]["hosts"][0]["fingerprint"]["hostname_said"] == "virtperf-1-1"
PY
    left_nothing "$RUN" "a member lying of its $lie"
done

# --- a verdict of 20 MiB (a verdict holds 64 KiB) is refused by its header, before
# anything is allocated for it: the member is named. A region whose job 1's affinity has
# no end in its 64 bytes (the real agent ran the point, a relay spoiled what it sent)
# fails the point, naming the member, and nothing reads past the array (ASan).
hostile_run 2 "a member's 20 MiB verdict" null --containers 1 --reps 1 --label hostile-huge \
    --db "$WORK/h.db"
expect_contains "$WORK/err" "virtperf-$RUN-1"
expect_contains "$WORK/err" "verdict"
expect_contains "$WORK/err" "65536"
no_terminal_control "$WORK/err" "a refused 20 MiB verdict"
left_nothing "$RUN" "a member's 20 MiB verdict"
hostile_run 1 "a member's spoiled region" null --containers 1 --reps 1 --label hostile-region \
    --db "$WORK/h.db" --json "$WORK/region.json"
json_check "$WORK/region.json" '(lambda r: r["status"] == "failed" and "sent a region that is not its jobs'"'"': job 1'"'"'s affinity does not end within its 64 bytes" in r["error"])(d["results"][0])' \
    "a region with an unterminated affinity should fail the point, naming the member"
left_nothing "$RUN" "a member's spoiled region"
# a region of 64 MiB, where the point lays out some KiB, is refused by its length
hostile_run 1 "a member's long region" null --containers 1 --reps 1 --label hostile-long \
    --db "$WORK/h.db" --json "$WORK/long.json"
json_check "$WORK/long.json" '(lambda r: r["status"] == "failed" and r["error"].startswith("container 1 (virtperf-") and "-1): a region frame of 67108864 bytes: accepted: at most " in r["error"])(d["results"][0])' \
    "a region longer than the point lays out should be refused by its length, naming the member"
left_nothing "$RUN" "a member's long region"

# --- a hello of 20 MiB (a hello holds 1 MiB), sent before the run's words come (the
# mode appended to the member's binary): refused by its header, the member named
MEMBER=$(hostile_with_mode huge-hello) hostile_run 2 "a member's 20 MiB hello" null --containers 1 --reps 1 \
    --db "$WORK/h.db"
left_nothing "$RUN" "a member's 20 MiB hello"
grep -q "virtperf: virtperf-$RUN-1 did not answer with a member's hello (a hello frame of 20971520 bytes: accepted: at most 1048576)" \
    "$WORK/err" || fail "a 20 MiB hello should be refused by its header: $(cat -v "$WORK/err")"

# --- SIGKILL of a containers run: the agents see the host gone and their containers
# end; the next run reclaims the run's directories
setsid "$VP" run cpu --containers 2 --reps 200 --duration 0.5s --db "$WORK/k.db" >"$WORK/kill.out" 2>&1 &
KILLED=$!
wait_for_run "$WORK/kill.out"
kill -9 -- -$KILLED
{ wait $KILLED; killed_status=$?; } 2>/dev/null # (bash's "Killed" notice, expected)
[ $killed_status -eq 137 ] || fail "the killed containers run should end by SIGKILL"
for _ in $(seq 1 100); do
    podman ps -a --format '{{.Names}}' | grep -q "^virtperf-$KILLED-" || break
    sleep 0.2
done
left=$(podman ps -a --format '{{.Names}}' | grep "^virtperf-$KILLED-")
[ -z "$left" ] || fail "containers of a killed run still there 20 s on: $left"
expect_status 0 "$VP" run null --containers 1 --reps 1 --db "$WORK/k.db"
expect_contains "$WORK/err" "left by a virtperf (pid $KILLED) that is gone"
left_nothing "$KILLED" "a killed containers run, after the next run"

# --- output flags never replace a device or a FIFO
before=$(stat -c '%F %t:%T' /dev/null)
expect_status 0 "$VP" run null --reps 1 --db "$WORK/o.db" --json /dev/null
[ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ] || fail "--json /dev/null replaced /dev/null: $(stat -c '%F' /dev/null)"
expect_status 0 "$VP" results export 1 --db "$WORK/o.db" -o /dev/null
[ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ] || fail "export -o /dev/null replaced /dev/null"
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/from-fifo" &
READER=$!
expect_status 0 "$VP" run null --reps 1 --db "$WORK/o.db" --json "$WORK/fifo"
wait $READER || fail "the FIFO's reader failed"
[ -p "$WORK/fifo" ] || fail "--json FIFO replaced the FIFO"
json_check "$WORK/from-fifo" 'd["results"][0]["status"] == "ok"'
ln -s "$WORK/elsewhere" "$WORK/link"
expect_usage_error "--json: '$WORK/link' is a symbolic link; accepted:" \
    "$VP" run null --reps 1 --db "$WORK/o.db" --json "$WORK/link"
[ ! -e "$WORK/elsewhere" ] || fail "--json through a link wrote its target"

# --- no member flag is ignored: each of run's --help, on a run that starts no member of
# its kind, is refused by name
while read -r flag value; do
    case $flag in --guests | --containers | --uml | --group) continue ;; esac # groups: test_groups.c
    # shellcheck disable=SC2086
    expect_status 2 "$VP" run null --reps 1 --db "$WORK/walk.db" $flag $value
    grep -qF -- "virtperf: $flag: only for the" "$WORK/err" ||
        grep -qF -- "virtperf: $flag: only beside the guests or containers" "$WORK/err" ||
        fail "run $flag without members: not refused by name: $(cat "$WORK/err")"
done < <(member_flags)
expect_usage_error "--container-net: only for the containers of a run" \
    "$VP" run null --guests 1 --container-net host
expect_usage_error "--guest-cpus: only for the guests of a run" \
    "$VP" run null --containers 1 --guest-cpus 2
finish
