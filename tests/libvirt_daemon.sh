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
