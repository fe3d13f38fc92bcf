#!/bin/bash
# virtperf-mpi under Slurm: a one-node cluster made for this test alone (munged with its
# own key and socket, slurmctld and slurmd in the foreground with private ports, state
# and logs in the test's directory), then `srun --mpi=pmix -n 2 virtperf-mpi run`: one
# stored run of two ranks. Each daemon is stopped at the end and its exit status checked.
. "$(dirname "$0")/lib.sh"
VP_MPI=${VP_MPI:-$(dirname "$VP")/virtperf-mpi}
[ -x "$VP_MPI" ] || skip "virtperf-mpi was not built (scripts/deps.sh mpi, then rebuild)"
for daemon in munged slurmctld slurmd srun sinfo; do
    command -v "$daemon" >/dev/null || skip "$daemon is not installed (scripts/deps.sh test)"
done
[ "$(id -u)" -eq 0 ] || skip "a Slurm of its own needs root"
# Under ASan: leak checks on, Open MPI's own leaks suppressed (lib.sh).
suppress_library_leaks

S="$WORK/slurm"
mkdir -p "$S/state" "$S/spool"
head -c 1024 /dev/urandom >"$S/munge.key"
chmod 600 "$S/munge.key"
PIDS=()
stop_daemons() { # kills what is still running (a failed start), without judging it
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    wait 2>/dev/null
}
trap 'stop_daemons; rm -rf "$WORK"' EXIT

munged -F --force --key-file="$S/munge.key" --socket="$S/munge.sock" --pid-file="$S/munged.pid" \
    --log-file="$S/munged.log" --seed-file="$S/munged.seed" >"$S/munged.out" 2>&1 &
PIDS+=($!)
PORT=$((10000 + $$ % 20000)) # below the ephemeral ports (32768 up), which other sockets take
HOST=$(hostname -s)
cat >"$S/slurm.conf" <<EOF
ClusterName=vptest$$
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
NodeName=$HOST CPUs=2 State=UNKNOWN
PartitionName=vp Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"
for _ in $(seq 50); do [ -S "$S/munge.sock" ] && break; sleep 0.1; done
slurmctld -D -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.2
done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] ||
    skip "the one-node Slurm did not come up: $(tail -n 3 "$S/slurmctld.out" "$S/slurmd.out" 2>&1)"

expect_status 0 timeout 120 srun --mpi=pmix -n 2 --overcommit "$VP_MPI" run null --jobs 2 \
    --reps 2 --label slurm --json "$WORK/slurm.json"
expect_runs 1 "srun's two ranks store one run"
json_check "$WORK/slurm.json" 'd["results"][0]["status"] == "ok" and d["results"][0]["ranks"]["count"] == 2 and d["results"][0]["metrics"]["jobs"]["mean"] == 4' \
    "srun -n 2: one result with both ranks' jobs"

# Stopped in the reverse order of their start; each must end cleanly on SIGTERM.
for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill -TERM "${PIDS[$i]}"
    wait "${PIDS[$i]}"
    status=$?
    [ "$status" -eq 0 ] || fail "daemon $i (pid ${PIDS[$i]}) exited $status on SIGTERM"
done
PIDS=()
finish
