# libvirt_up: makes libvirt's qemu:///system answer, starting libvirtd and virtlogd where
# systemd does not run them; returns 0 when it started them (the caller then stops them
# with libvirt_down), 1 when they already answered, 2 when starting them failed. Sourced
# by tests/system/lib.sh (a test run alone) and tests/run_all.sh (the suite starts them
# once: two tests side by side must not stop the daemon under each other).
libvirt_up() {
    virsh -c qemu:///system version >/dev/null 2>&1 && return 1
    mkdir -p /var/log/libvirt
    # libvirtd daemonizes each QEMU, so a QEMU that exits is reaped by the nearest
    # subreaper or PID 1, and libvirt waits for that before a destroy returns. Where PID 1
    # is not systemd it may reap late (here once a second: virsh destroy took 1.4 s, and
    # 0.24 s under tini): libvirtd then runs under tini -s (scripts/deps.sh test), which
    # reaps at once; in a subshell, so that no test's `wait` waits for the daemon.
    if command -v tini >/dev/null; then
        (setsid tini -s -- libvirtd >>/var/log/libvirt/libvirtd-tests.log 2>&1 &)
    else
        libvirtd -d || return 2
    fi
    virtlogd -d || return 2
    for _ in $(seq 1 50); do virsh -c qemu:///system version >/dev/null 2>&1 && return 0; sleep 0.2; done
    libvirt_down # started, yet not answering in 10 s (under tini: its log is libvirtd-tests.log)
    return 2
}
libvirt_down() {
    pkill -x libvirtd
    pkill -x virtlogd
}
# second_libvirt_up DIR: a second libvirtd on this machine, a hypervisor "elsewhere" to
# migrate guests to: its own mount namespace with private /run/libvirt, /var/lib/libvirt
# and /etc/libvirt (a copy of this host's, another host_uuid, QEMU's output to files
# since no virtlogd runs there, migrations in on ports 61440-61503), its socket
# DIR/sock/libvirt-sock, its pid DIR/pid. Prints
# its URI; returns 1 when it does not answer in 10 s (its log: DIR/libvirtd.log).
second_libvirt_up() {
    local dir=$1
    mkdir -p "$dir/run" "$dir/lib" "$dir/etc" "$dir/sock" || return 1
    cp -a /etc/libvirt/. "$dir/etc/" && cp -a /var/lib/libvirt/. "$dir/lib/" || return 1
    rm -rf "$dir/lib/qemu/"*.xml "$dir/etc/qemu/"*.xml 2>/dev/null
    printf 'host_uuid = "%s"\nunix_sock_dir = "%s"\n' "$(cat /proc/sys/kernel/random/uuid)" \
        "$dir/sock" >>"$dir/etc/libvirtd.conf"
    # its migrations arrive on ports 61440-61503, outside Linux's ephemeral 32768-60999, so a
    # test can shape them alone (by destination port) beside other tests' connections
    printf 'stdio_handler = "file"\nmigration_port_min = 61440\nmigration_port_max = 61503\n' \
        >>"$dir/etc/qemu.conf"
    # under tini -s where there is one, as libvirt_up's daemon: QEMUs it let go are reaped at
    # once (a migration's source QEMU otherwise held its return 1.6 s longer here)
    local reaper=""
    command -v tini >/dev/null && reaper="tini -s --"
    (setsid unshare -m --propagation private sh -c "mount --bind '$dir/run' /run/libvirt &&
        mount --bind '$dir/lib' /var/lib/libvirt && mount --bind '$dir/etc' /etc/libvirt &&
        exec $reaper libvirtd -p '$dir/pid'" >>"$dir/libvirtd.log" 2>&1 &)
    local uri="qemu:///system?socket=$dir/sock/libvirt-sock"
    for _ in $(seq 1 50); do
        virsh -c "$uri" version >/dev/null 2>&1 && { echo "$uri"; return 0; }
        sleep 0.2
    done
    return 1
}
# second_libvirt_down DIR: stops that daemon and every QEMU it started.
second_libvirt_down() {
    local dir=$1 pid
    pid=$(cat "$dir/pid" 2>/dev/null) || return 0
    for domain in $(virsh -c "qemu:///system?socket=$dir/sock/libvirt-sock" list --name 2>/dev/null); do
        virsh -c "qemu:///system?socket=$dir/sock/libvirt-sock" destroy "$domain" >/dev/null 2>&1
    done
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
}
