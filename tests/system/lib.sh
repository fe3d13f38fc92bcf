# Shared helpers for the system tests: a private database and temp dir per test,
# assertions that print what was expected, and JSON checks through python3.
# Each test script sources this, calls its checks, and ends with 'finish'.
set -u
# VP_TRACE_DIR=DIR: each test writes its every command, with the second it began at, to
# DIR/NAME.trace (tests/slowest_steps.sh lists the longest steps of a suite's run).
if [ -n "${VP_TRACE_DIR:-}" ]; then
    [ -d "$VP_TRACE_DIR" ] && [ -w "$VP_TRACE_DIR" ] ||
        { echo "VP_TRACE_DIR: '$VP_TRACE_DIR' is not a writable directory; accepted: one" >&2; exit 2; }
    exec {vp_trace_fd}>>"$VP_TRACE_DIR/${VP_TRACE_LABEL:-$(basename "$0" .sh)}.trace"
    BASH_XTRACEFD=$vp_trace_fd
    PS4='+ $SECONDS '
    set -x
fi
VP=${VP:-$(cd "$(dirname "$0")/../.." && pwd)/build/virtperf}
WORK=$(mktemp -d /tmp/vp-system.XXXXXX)
# new_store NAME: prints a new, empty store's --db: a file in $WORK, or, when VP_SITE_URL
# names a PostgreSQL server (test_site_store.sh runs tests against its own), a new database
# there. store_count STORE TABLE: the rows of TABLE in it.
new_store() {
    if [ -z "${VP_SITE_URL:-}" ]; then
        echo "$WORK/$1.db"
        return
    fi
    local name="t$$_$1_$RANDOM"
    psql -X -q -d "$VP_SITE_URL/postgres" -c "CREATE DATABASE $name" >/dev/null ||
        { echo "FAIL: cannot create database $name on $VP_SITE_URL" >&2; exit 1; }
    echo "$VP_SITE_URL/$name"
}
store_count() {
    case "$1" in
    postgres*://*) psql -X -At -d "$1" -c "SELECT COUNT(*) FROM $2" ;;
    *) sqlite3 "$1" "SELECT COUNT(*) FROM $2" ;;
    esac
}
VIRTPERF_DB=$(new_store results)
export VIRTPERF_DB
FAILURES=0
trap 'forget_postgresql; rm -rf "$WORK"' EXIT

# True in the pass under ASan+UBSan (run_all.sh sets VP_SANITIZED=1), where what matters
# is the code each path runs, not how long it takes: sections that only wait for a
# deadline or check a measured rate run in the release pass alone.
sanitized() { [ "${VP_SANITIZED:-0}" = 1 ]; }
# True in the release pass of a test that runs in both (run_all.sh sets
# VP_MEASURING_ONLY=1): the sections the sanitized pass covers are left out there.
measuring_only() { [ "${VP_MEASURING_ONLY:-0}" = 1 ]; }

# two_hosts NS_A NS_B SUBNET: two network namespaces joined by a veth pair, vpa$$ in
# NS_A at SUBNET.1 and vpb$$ in NS_B at SUBNET.2 (SUBNET such as 198.18.0), links and
# loopbacks up; skips the test (77) without root or ip netns. The caller deletes them.
two_hosts() {
    if [ "$(id -u)" -ne 0 ] || ! ip netns add "$1" 2>/dev/null; then
        skip "the namespace part needs root and ip netns"
    fi
    ip netns add "$2"
    ip link add vpa$$ netns "$1" type veth peer name vpb$$ netns "$2"
    ip -n "$1" addr add "$3.1/24" dev vpa$$
    ip -n "$2" addr add "$3.2/24" dev vpb$$
    for ns in "$1" "$2"; do ip -n "$ns" link set lo up; done
    ip -n "$1" link set vpa$$ up
    ip -n "$2" link set vpb$$ up
}

# wait_for_run OUT: until OUT has a run's first line ("run N ..."), then a second more.
wait_for_run() {
    for _ in $(seq 1 600); do grep -q '^run [0-9]' "$1" && break; sleep 0.1; done
    sleep 1
}
# interrupt_run OUT CMD...: CMD in the background (its output in OUT), a Ctrl-C once its
# run has begun; fails unless it exits 130. RUN is its pid (what it left is the caller's
# to check).
interrupt_run() {
    local out=$1 status
    shift
    "$@" >"$out" 2>&1 &
    RUN=$!
    wait_for_run "$out"
    kill -INT $RUN
    wait $RUN
    status=$?
    [ $status -eq 130 ] || fail "Ctrl-C should exit 130, got $status: $(tail -5 "$out")"
}

# use_libvirt: libvirt's qemu:///system answering, libvirtd and virtlogd started where
# systemd does not run them (LIBVIRTD_STARTED=true then); skips (77) without root or
# libvirt. stop_libvirt: destroys every virtperf- domain whose run has ended and stops
# what use_libvirt started.
. "$(dirname "${BASH_SOURCE[0]}")/../libvirt_daemon.sh"
LIBVIRTD_STARTED=false
use_libvirt() {
    [ "$(id -u)" -eq 0 ] || skip "libvirt's qemu:///system needs root"
    command -v libvirtd >/dev/null || skip "libvirt is not installed (scripts/deps.sh guests)"
    libvirt_up
    case $? in
    0) LIBVIRTD_STARTED=true ;;
    2) fail "starting libvirtd or virtlogd failed" ;;
    esac
}
# test_bridge NAME: a bridge of the test's own, up, with the address SUBNET.1/24 in
# 198.18.0.0/15 (SUBNET set here, per test process); the guests take the next addresses.
test_bridge() {
    SUBNET=198.18.$(( $$ % 200 + 20 ))
    ip link add "$1" type bridge && ip addr add "$SUBNET.1/24" dev "$1" && ip link set "$1" up ||
        fail "cannot make the test's bridge"
}
# guests_left_nothing PID WHAT: nothing of run PID ('[0-9]*': of any run that has ended:
# another test's may be running beside this one) is left: no domain, no file in its work
# directory, no disk image in $WORK/disks.
guests_left_nothing() {
    local name domains="" files=""
    for name in $(virsh -c qemu:///system list --all --name | grep "^virtperf-$1-"); do
        run_ended "$name" && domains="$domains $name"
    done
    [ -z "$domains" ] || fail "$2: domains left:$domains"
    for name in $(ls /tmp/virtperf-guests-* 2>/dev/null | grep "^virtperf-$1-"); do
        run_ended "$name" && files="$files $name"
    done
    [ -z "$files" ] || fail "$2: files of the run left in /tmp/virtperf-guests-*:$files"
    ! ls "$WORK/disks" 2>/dev/null | grep -q . || fail "$2: disk images left: $(ls "$WORK/disks")"
}
# run_ended NAME: whether the run that made guest or container NAME has ended: NAME is
# virtperf-PID-N (run --guests, --containers) or virtperf-guestsh-PID (scripts/guest.sh).
# One whose run still lives is another test's, running beside this one: leave it.
run_ended() {
    local owner=${1#virtperf-}
    owner=${owner#guestsh-}
    ! kill -0 "${owner%%-*}" 2>/dev/null
}
# remove_ended_containers: removes every virtperf- podman container whose run has ended.
remove_ended_containers() {
    local name
    for name in $(podman ps -a --format '{{.Names}}' 2>/dev/null | grep '^virtperf-'); do
        run_ended "$name" && podman rm -f "$name" >/dev/null 2>&1
    done
    return 0
}
stop_libvirt() {
    local domain
    for domain in $(virsh -c qemu:///system list --all --name 2>/dev/null | grep '^virtperf-'); do
        run_ended "$domain" && virsh -c qemu:///system destroy "$domain" >/dev/null 2>&1
    done
    if $LIBVIRTD_STARTED; then libvirt_down; fi
}

# serving PID RUN ADDRESS PORT...: 0 once every PORT at ADDRESS answers (RUN, such as
# "ip netns exec NS" or "", says where to ask), 1 when PID ends first or after 10 s.
serving() {
    local pid=$1 run=$2 address=$3 probe="true" port fd=3
    shift 3
    for port; do
        probe="$probe && exec $fd<>/dev/tcp/$address/$port"
        fd=$((fd + 1))
    done
    for _ in $(seq 1 100); do
        $run bash -c "$probe" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# start_xrootd DIR PORT HTTP_PORT [NETNS]: an xrootd (Debian xrootd-server) serving DIR
# over root:// on PORT and over HTTP (its XrdHttp plugin) on HTTP_PORT, as user nobody,
# tracing every request into $XROOTD_LOG (unless XROOTD_TRACE=0: a measurement's
# server writes no trace); returns once both ports answer. XROOTD_PID is
# its pid: stop it with stop_xrootd, which checks it was still running. Skips (77)
# without root or xrootd.
start_xrootd() {
    command -v xrootd >/dev/null || skip "xrootd is not installed (scripts/deps.sh data)"
    [ "$(id -u)" -eq 0 ] || skip "xrootd serves as user nobody only when root starts it"
    XROOTD_HOME=$(mktemp -d /tmp/vp-xrootd.XXXXXX)
    XROOTD_LOG=$XROOTD_HOME/admin/xrootd.log # written by nobody
    mkdir "$XROOTD_HOME/admin"
    chmod 755 "$XROOTD_HOME"
    chown -R nobody "$XROOTD_HOME/admin" "$1"
    printf '%s\n' "all.export $1" "all.adminpath $XROOTD_HOME/admin" \
        "all.pidpath $XROOTD_HOME/admin" "xrd.protocol XrdHttp:$3 libXrdHttp.so" \
        >"$XROOTD_HOME/xrootd.cfg"
    [ "${XROOTD_TRACE:-1}" = 0 ] || printf '%s\n' "xrootd.trace all" "http.trace all" >>"$XROOTD_HOME/xrootd.cfg"
    local run=""
    [ -n "${4:-}" ] && run="ip netns exec $4"
    $run xrootd -R nobody -p "$2" -c "$XROOTD_HOME/xrootd.cfg" -l "$XROOTD_LOG" \
        >"$XROOTD_HOME/stdout" 2>&1 &
    XROOTD_PID=$!
    serving "$XROOTD_PID" "$run" 127.0.0.1 "$2" "$3" && return 0
    fail "xrootd did not start: $(tail -n 5 "$XROOTD_HOME/stdout" "$XROOTD_LOG" 2>&1)"
    finish
}

# stop_xrootd: stops the xrootd start_xrootd started; it must have run until now.
stop_xrootd() {
    [ -n "${XROOTD_PID:-}" ] || return 0
    kill -0 "$XROOTD_PID" 2>/dev/null || fail "xrootd had stopped before the test ended"
    kill -TERM "$XROOTD_PID" 2>/dev/null
    wait "$XROOTD_PID"
    local status=$?
    [ "$status" -eq 143 ] || fail "xrootd exited $status, want 143 (ended by the test's SIGTERM): $(tail -3 "$XROOTD_HOME/stdout")"
    XROOTD_PID=
    rm -rf "$XROOTD_HOME"
}

# start_ganesha DIR NETNS ADDRESS: nfs-ganesha (Debian nfs-ganesha, nfs-ganesha-vfs) in
# NETNS serving DIR on ADDRESS over NFSv3 (DIR, its real path) and v4 (the pseudo path
# /export), TCP only, with an rpcbind of its own: both get a private /run, which they
# write; the server starts once rpcbind's socket is there (started together, a server
# that came first on a slow machine could not register NFSv3: "Cannot register NFS V3 on
# TCP"). Returns once the NFS and portmapper ports answer. GANESHA_PID is the server's
# pid: stop it with stop_ganesha, which checks it was still running. Skips (77) without
# the packages.
start_ganesha() {
    command -v ganesha.nfsd >/dev/null && command -v rpcbind >/dev/null ||
        skip "nfs-ganesha is not installed (scripts/deps.sh nfs)"
    GANESHA_HOME=$(mktemp -d /tmp/vp-ganesha.XXXXXX)
    GANESHA_NETNS=$2
    mkdir "$GANESHA_HOME/recovery"
    printf '%s\n' \
        "NFS_CORE_PARAM { Protocols = 3, 4; Bind_addr = $3; Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = false; }" \
        "NFSv4 { Graceless = true; RecoveryRoot = $GANESHA_HOME/recovery; Minor_Versions = 0, 1, 2; }" \
        "EXPORT { Export_Id = 1; Path = $1; Pseudo = /export; Access_Type = RW; Squash = No_Root_Squash; SecType = sys; Protocols = 3, 4; Transports = TCP; FSAL { Name = VFS; } }" \
        >"$GANESHA_HOME/ganesha.conf"
    # (unshare execs sh, and sh execs the server: $! is ganesha's own pid)
    ip netns exec "$2" unshare -m --propagation private sh -c \
        'mount -t tmpfs tmpfs /run && { rpcbind -w -f & } && n=0 &&
         while [ ! -S /run/rpcbind.sock ] && [ $n -lt 250 ]; do sleep 0.02; n=$((n + 1)); done &&
         exec ganesha.nfsd -F -f "$1/ganesha.conf" -L "$1/log" -p "$1/pid" -N NIV_EVENT' \
        sh "$GANESHA_HOME" >"$GANESHA_HOME/stdout" 2>&1 &
    GANESHA_PID=$!
    serving "$GANESHA_PID" "ip netns exec $2" "$3" 2049 111 && return 0
    fail "nfs-ganesha did not start: $(tail -n 5 "$GANESHA_HOME/stdout" "$GANESHA_HOME/log" 2>&1)"
    finish
}
# stop_ganesha: stops the server start_ganesha started (it must have run until now, and
# ends with status 0 on SIGTERM), then its rpcbind: every process left in its namespace,
# so a server sharing it (an xrootd) is stopped first.
stop_ganesha() {
    [ -n "${GANESHA_PID:-}" ] || return 0
    kill -0 "$GANESHA_PID" 2>/dev/null || fail "nfs-ganesha had stopped before the test ended"
    kill -TERM "$GANESHA_PID" 2>/dev/null
    wait "$GANESHA_PID"
    local status=$?
    [ "$status" -eq 0 ] || fail "nfs-ganesha exited $status, want 0 (ended by the test's SIGTERM): $(tail -3 "$GANESHA_HOME/log")"
    ip netns pids "$GANESHA_NETNS" | xargs -r kill -9
    GANESHA_PID=
    rm -rf "$GANESHA_HOME"
}

# start_postgresql [ADDRESS...]: a private PostgreSQL server for this test (Debian's
# postgresql; skips 77 without it or root): a cluster made by initdb in $PG_HOME as user
# postgres, on 127.0.0.1 (and each ADDRESS, which must exist) at port PG_PORT, password
# logins (scram) only, its superuser vpsite with the password kept in $PG_HOME/pgpass
# (PGPASSFILE is exported: virtperf finds it there, never in a URL). PG_URL is
# postgresql://vpsite@127.0.0.1:PG_PORT; PG_PID the server's pid. stop_postgresql stops it
# and checks it ran until then; restart_postgresql starts it again on the same data.
start_postgresql() {
    [ "$(id -u)" -eq 0 ] || skip "the test's PostgreSQL server runs as user postgres: needs root"
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -x "$PG_BIN/initdb" ] || skip "PostgreSQL's server is not installed (scripts/deps.sh test)"
    PG_HOME=$(mktemp -d /tmp/vp-pg.XXXXXX)
    chmod 755 "$PG_HOME"
    PG_LISTEN=127.0.0.1
    for address in "$@"; do PG_LISTEN="$PG_LISTEN,$address"; done
    head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$PG_HOME/password"
    chown -R postgres "$PG_HOME"
    setpriv --reuid postgres --regid postgres --clear-groups "$PG_BIN/initdb" -D "$PG_HOME/data" \
        -U vpsite --pwfile="$PG_HOME/password" --auth=scram-sha-256 --no-sync \
        >"$PG_HOME/initdb.log" 2>&1 || { fail "initdb: $(tail -n 3 "$PG_HOME/initdb.log")"; finish; }
    echo "host all all 198.18.0.0/15 scram-sha-256" >>"$PG_HOME/data/pg_hba.conf"
    printf '*:*:*:vpsite:%s\n' "$(cat "$PG_HOME/password")" >"$PG_HOME/pgpass"
    chmod 600 "$PG_HOME/pgpass"
    export PGPASSFILE="$PG_HOME/pgpass"
    # a port below the ephemeral range; one another test takes first is tried again
    for _ in 1 2 3 4 5; do
        PG_PORT=$((15000 + RANDOM % 15000))
        bash -c "exec 3<>/dev/tcp/127.0.0.1/$PG_PORT" 2>/dev/null && continue
        PG_URL="postgresql://vpsite@127.0.0.1:$PG_PORT"
        restart_postgresql && return 0
    done
    fail "PostgreSQL did not start on five ports: $(tail -n 5 "$PG_HOME/server.log")"
    finish
}

# restart_postgresql: the server on PG_PORT again (after start_postgresql or
# kill_postgresql); 1 when another process holds one of its addresses' port.
restart_postgresql() {
    setpriv --reuid postgres --regid postgres --clear-groups "$PG_BIN/postgres" -D "$PG_HOME/data" \
        -p "$PG_PORT" -c listen_addresses="$PG_LISTEN" -c unix_socket_directories="$PG_HOME" \
        -c fsync=off -c max_connections=60 >>"$PG_HOME/server.log" 2>&1 &
    PG_PID=$!
    for _ in $(seq 1 200); do
        psql -X -q -d "$PG_URL/postgres" -c "SELECT 1" >/dev/null 2>&1 && return 0
        if grep -q "could not bind" "$PG_HOME/server.log" || ! kill -0 "$PG_PID" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    if grep -q "could not bind" "$PG_HOME/server.log"; then
        kill -INT "$PG_PID" 2>/dev/null
        wait "$PG_PID" 2>/dev/null
        mv "$PG_HOME/server.log" "$PG_HOME/server.log.port$PG_PORT"
        PG_PID=
        return 1
    fi
    fail "PostgreSQL did not start: $(tail -n 5 "$PG_HOME/server.log")"
    finish
}

# site_database NAME: a new database NAME in the test's server; SITE = its URL.
site_database() {
    psql -X -q -d "$PG_URL/postgres" -c "CREATE DATABASE $1" >/dev/null || fail "createdb $1"
    SITE="$PG_URL/$1"
}

# kill_postgresql: the server and its backends killed at once (SIGKILL), as a crash;
# returns once every one of them has exited (a backend still exiting holds the shared
# memory the next start refuses: "pre-existing shared memory block is still in use")
kill_postgresql() {
    local processes pid alive
    processes="$PG_PID $(pgrep -P "$PG_PID" | tr '\n' ' ')"
    # shellcheck disable=SC2086 # one pid a word
    kill -KILL $processes 2>/dev/null
    wait "$PG_PID" 2>/dev/null
    for _ in $(seq 1 100); do
        alive=0
        for pid in $processes; do # gone, or a zombie: exited
            [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && alive=1
        done
        [ $alive -eq 0 ] && break
        sleep 0.05
    done
    PG_PID=
}

# forget_postgresql: on the way out (the EXIT trap), a server still running is stopped
# and its files removed; the test itself calls stop_postgresql, which checks.
forget_postgresql() {
    [ -n "${PG_HOME:-}" ] || return 0
    [ -z "${PG_PID:-}" ] || { kill -INT "$PG_PID" 2>/dev/null; wait "$PG_PID" 2>/dev/null; }
    rm -rf "$PG_HOME"
}

stop_postgresql() {
    [ -n "${PG_HOME:-}" ] || return 0
    if [ -n "${PG_PID:-}" ]; then
        kill -0 "$PG_PID" 2>/dev/null || fail "PostgreSQL had stopped before the test ended: $(tail -n 3 "$PG_HOME/server.log")"
        kill -INT "$PG_PID" 2>/dev/null # fast shutdown
        wait "$PG_PID"
        local status=$?
        [ "$status" -eq 0 ] || fail "PostgreSQL exited $status on a fast shutdown, want 0"
    fi
    rm -rf "$PG_HOME"
    PG_HOME=
}

# suppress_library_leaks [everywhere]: under ASan, leak checks stay on and what Open MPI
# and gfal2 themselves never free is suppressed (tests/system/data/library-leaks.supp says
# how). The suppressions need the slow unwinder (fast_unwind_on_malloc=0), 0.7 s more for
# each sanitized process: only virtperf-mpi, which loads Open MPI, takes it (ASan reads
# data/asan-virtperf-mpi.opts by the binary's name, %b), or every process with
# `everywhere` (gfal2 is loaded by virtperf itself).
suppress_library_leaks() {
    case "${ASAN_OPTIONS:-}" in
    *fast_unwind_on_malloc=0* | *include_if_exists=*) ;; # already
    *detect_leaks=1*)
        local data
        data=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data
        if [ "${1:-}" = everywhere ]; then
            export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
        else
            export ASAN_OPTIONS="$ASAN_OPTIONS:include_if_exists=$data/asan-%b.opts"
        fi
        export LSAN_OPTIONS="suppressions=$data/library-leaks.supp:print_suppressions=0"
        ;;
    esac
}

# use_open_mpi: the environment every test's mpirun runs in: as root, more ranks than
# CPUs, ranks unbound, leak checks on (suppress_library_leaks), and PMIx's key store in
# the process (gds=hash): its shared-memory store fails for ranks in other network
# namespaces, and LeakSanitizer's tracer dies (signal 11) on its mappings at exit.
# Under ASan, reports name each frame's library and offset but no function (symbolize=0):
# Open MPI's leaks are suppressed by library, and looking each frame up cost every rank
# 0.75 s at exit (a third of a sanitized mpirun). To read a report: symbolize=1, or
# addr2line -e LIBRARY OFFSET.
use_open_mpi() {
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
    MPIRUN=(mpirun --oversubscribe --bind-to none)
    suppress_library_leaks
    case "${ASAN_OPTIONS:-}" in *detect_leaks=1*) export ASAN_OPTIONS="$ASAN_OPTIONS:symbolize=0" ;; esac
}

# namespace_hosts N: N network namespaces stand in for N hosts, a veth each into a bridge
# of the test's own, host i at SUBNET.(10 + i) in 198.18.0.0/15 (P names them, unique to
# the test process); MPIRUN then starts one rank on each through an rsh agent that runs
# the remote command with `ip netns exec`. namespace_hosts_down removes them.
namespace_hosts() {
    NAMESPACE_HOSTS=$1
    P=vp$(($$ % 100000))
    SUBNET=198.18.$(($$ % 200 + 20))
    ip link add "${P}br" type bridge && ip addr add "$SUBNET.1/24" dev "${P}br" &&
        ip link set "${P}br" up || fail "cannot make the bridge"
    : >"$WORK/hosts.map"
    local i hosts=""
    for i in $(seq 1 "$NAMESPACE_HOSTS"); do
        ip netns add "${P}n$i" &&
            ip link add "${P}v$i" type veth peer name eth0 netns "${P}n$i" &&
            ip link set "${P}v$i" master "${P}br" up &&
            ip -n "${P}n$i" addr add "$SUBNET.$((10 + i))/24" dev eth0 &&
            ip -n "${P}n$i" link set eth0 up && ip -n "${P}n$i" link set lo up ||
            fail "cannot make namespace $i"
        echo "$SUBNET.$((10 + i)) ${P}n$i" >>"$WORK/hosts.map"
        hosts="$hosts${hosts:+,}$SUBNET.$((10 + i))"
    done
    cat >"$WORK/agent.sh" <<'AGENT'
#!/bin/sh
# mpirun's rsh agent: "HOST COMMAND..." runs COMMAND in the namespace of HOST's address
host=$1
shift
ns=$(awk -v h="$host" '$1 == h {print $2}' "$(dirname "$0")/hosts.map")
[ -n "$ns" ] || { echo "agent: no namespace for $host" >&2; exit 1; }
# Each host's orted its own session directory: the namespaces share one /tmp and one
# hostname, so the daemons' session directories would share a parent that the first to
# finish removes under the others.
mkdir -p "$(dirname "$0")/ompi-$ns"
OMPI_MCA_orte_tmpdir_base="$(dirname "$0")/ompi-$ns" exec ip netns exec "$ns" sh -c "$*"
AGENT
    chmod +x "$WORK/agent.sh"
    # rtc_hwloc_vmhole none: Open MPI 4.1.4's orted otherwise maps its hwloc topology into
    # shared memory at an address it guessed free, and crashed there (SIGSEGV in
    # hwloc_shmem_topology_write) in 2 of about 10 runs of this test.
    MPIRUN=(mpirun --mca plm_rsh_agent "$WORK/agent.sh" --mca rtc_hwloc_vmhole none
        --mca btl tcp,self --mca btl_tcp_if_include "$SUBNET.0/24"
        --mca oob_tcp_if_include "$SUBNET.0/24" --host "$hosts" -np "$NAMESPACE_HOSTS"
        --bind-to none)
}
namespace_hosts_down() {
    local i
    for i in $(seq 1 "${NAMESPACE_HOSTS:-0}"); do ip netns del "${P}n$i" 2>/dev/null; done
    ip link del "${P}br" 2>/dev/null
}

# serve ARGS...: starts virtperf serve on 127.0.0.1:$PORT, its log in $WORK/serve.log,
# its pid in SERVE_PID; returns once it listens.
serve() {
    "$VP" serve --bind 127.0.0.1 --port "$PORT" "$@" 2>"$WORK/serve.log" &
    SERVE_PID=$!
    for _ in $(seq 1 100); do
        grep -q listening "$WORK/serve.log" && return 0
        sleep 0.05
    done
    fail "serve did not start: $(cat "$WORK/serve.log")"
}

# hostile_with_mode MODE: a copy of the tests' hostile member (beside $VP) that takes MODE
# before the run's words come (tests/hostile/hostile_member.c reads it from its file's
# end); prints its path
hostile_with_mode() {
    cp "$(dirname "$VP")/hostile_member" "$WORK/hostile-$1" || fail "no hostile member beside $VP"
    printf '\nhostile-mode:%s\n' "$1" >>"$WORK/hostile-$1"
    echo "$WORK/hostile-$1"
}

wait_listening() { # PORT: until something accepts connections there
    for _ in $(seq 1 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), timeout=1)" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "nothing listens on port $1"
}

# member_flags: every flag of `virtperf run --help` about guests, containers or UML, one a
# line with a valid value ("--guest-cpus 2"; a switch alone), for the walks that check
# each is honoured or refused
member_flags() {
    "$VP" run --help | awk '$1 ~ /^--(guest|container|libvirt-uri|and-host|uml|group|qos|keep-free|migrate)/ {print $1, $2}' |
        while read -r flag argument; do
            case "$flag $argument" in
            "--and-host "* | "--migrate-back "*) echo "$flag" ;;
            "--migrate-at "*) echo "$flag 2s" ;;
            *" A") echo "$flag tcg" ;;
            *" B") echo "$flag ide" ;;
            *" MODEL") echo "$flag e1000" ;;
            *" E") echo "$flag podman" ;;
            *" R") echo "$flag runc" ;;
            "--container-net "*) echo "$flag host" ;;
            *" URI") echo "$flag qemu:///system" ;;
            *" MiB") echo "$flag 512" ;;
            *" S") echo "$flag 30" ;;
            *" DIR") echo "$flag /tmp" ;;
            *" SIZE") echo "$flag 1G" ;;
            *" BRIDGE") echo "$flag br0" ;;
            *" PCT[@N]") echo "$flag 50" ;;
            *" PATHS") echo "$flag /bin/true" ;;
            *" nfs://S/E:DIR") echo "$flag nfs://198.18.0.1/srv:/mnt/store" ;;
            "--guest-pin "*) echo "$flag compact" ;;
            "--group "*) echo "$flag a:guests=1" ;;
            *" RULE") echo "$flag p99<=1.5x" ;;
            *) echo "$flag 1" ;;
            esac
        done
}

fail() {
    echo "FAIL: $*" >&2
    FAILURES=$((FAILURES + 1))
}

# expect_status WANT CMD...: runs CMD, output in $WORK/out and $WORK/err.
expect_status() {
    local want=$1 got
    shift
    "$@" >"$WORK/out" 2>"$WORK/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "'$*' exited $got, want $want; stderr: $(head -c 400 "$WORK/err")"
}

# expect_usage_error 'TEXT' CMD...: exit 2, one line on stderr containing TEXT.
expect_usage_error() {
    text=$1
    shift
    expect_status 2 "$@"
    lines=$(wc -l <"$WORK/err")
    [ "$lines" -eq 1 ] || fail "'$*' printed $lines lines on stderr, want 1: $(cat "$WORK/err")"
    grep -qF -- "$text" "$WORK/err" || fail "'$*' stderr lacks '$text': $(cat "$WORK/err")"
}

expect_contains() {
    file=$1
    text=$2
    grep -qF -- "$text" "$file" || fail "$file lacks '$text': $(head -c 600 "$file")"
}

# json_check FILE 'python expression over d (the document)' 'description'; on failure the
# results' status and metric means are shown
json_check() {
    python3 - "$1" "$2" <<'PY' || fail "$3"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
if not ok:  # what was checked, for whoever reads the failure
    for r in d.get("results", [])[:8] if isinstance(d, dict) else []:
        means = {k: round(m["mean"], 9) for k, m in r.get("metrics", {}).items() if m.get("mean") is not None}
        print("  %s %s %s %s" % (r.get("bench"), r.get("status"), r.get("error", ""), means), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# count_runs: RUNS = the runs stored in $VIRTPERF_DB, a file or a PostgreSQL URL (0 when
# no database file was made). A
# database that cannot be queried fails the test: it never reads as "nothing stored".
count_runs() {
    RUNS=0
    case "$VIRTPERF_DB" in postgres*://*) ;; *) [ -e "$VIRTPERF_DB" ] || return 0 ;; esac
    if ! RUNS=$(store_count "$VIRTPERF_DB" runs 2>"$WORK/sqlite.err"); then
        fail "cannot count the runs in $VIRTPERF_DB: $(cat "$WORK/sqlite.err")"
        RUNS=-1
    fi
}

# expect_runs N WHY: exactly N runs are stored.
expect_runs() {
    count_runs
    [ "$RUNS" -eq "$1" ] || fail "$2 ($RUNS runs stored, want $1)"
}

# skip WHY: the rest of this test cannot run on this machine. Exit 77 (counted as a
# skip, never a pass), or 1 when a check before it already failed.
skip() {
    echo "skip: $(basename "$0"): $*"
    [ "$FAILURES" -eq 0 ] && exit 77
    finish
}

# runs_round_trip: every run the test stored in its SQLite store ($VIRTPERF_DB) leaves by
# `results export` and comes back by `results import` into a new store, as many results:
# each figure the tool stores passes the tool's own import check (host, plan, MPI,
# guests, containers, --and-host: whatever the test made). finish calls it.
runs_round_trip() {
    case "$VIRTPERF_DB" in *://*) return 0 ;; esac
    [ -s "$VIRTPERF_DB" ] || return 0
    local run results
    for run in $(sqlite3 "$VIRTPERF_DB" "SELECT id FROM runs ORDER BY id" 2>/dev/null); do
        results=$(sqlite3 "$VIRTPERF_DB" "SELECT COUNT(*) FROM results WHERE run_id = $run")
        rm -f "$WORK/round-trip.db" "$WORK/round-trip.json"
        if ! "$VP" results export "$run" -o "$WORK/round-trip.json" >"$WORK/round-trip.out" 2>&1 ||
            ! VIRTPERF_DB="$WORK/round-trip.db" "$VP" results import "$WORK/round-trip.json" \
                >>"$WORK/round-trip.out" 2>&1; then
            fail "run $run should survive results export and import: $(tail -2 "$WORK/round-trip.out")"
            continue
        fi
        [ "$(sqlite3 "$WORK/round-trip.db" "SELECT COUNT(*) FROM results")" = "$results" ] ||
            fail "run $run: $results results exported, another count imported"
    done
}
# reports_unescaped: no report the test wrote into $WORK shows the report's own markup as
# text (an escaped <br>, <span class=...>, <p class=...>): its tags are tags, and only
# what documents say is escaped. finish calls it.
reports_unescaped() {
    local page
    for page in $(find "$WORK" -name '*.html' 2>/dev/null); do
        grep -qE '&lt;/?(br|span|p|td|th|tr|table|div|details|summary|h[1-6])( class=|&gt;)' "$page" &&
            fail "$page shows its own markup escaped: $(grep -oE '.{40}&lt;/?(br|span|p|td|th|tr|table|div)[^;]*;.{20}' "$page" | head -1)"
    done
}
finish() {
    runs_round_trip
    reports_unescaped
    if [ "$FAILURES" -eq 0 ]; then
        echo "ok: $(basename "$0")"
        exit 0
    fi
    echo "FAILED: $(basename "$0") ($FAILURES checks)"
    exit 1
}
