#!/bin/sh
# Installs the Debian packages virtperf needs to build, test or compare, and
# nothing when they are already present.  Usage: scripts/deps.sh [--list] [build|mpi|test|peers|guest|guests|containers|uml|presets|data|nfs|site]...
# (default: build).  Not root and something missing: prints the apt-get line, exits 1.
# --list prints the sets' packages, one per line, and installs nothing.
set -eu

build_pkgs="meson ninja-build pkg-config gcc libsqlite3-dev libjansson-dev libhwloc-dev liburing-dev libssl-dev libinih-dev"
mpi_pkgs="$build_pkgs openmpi-bin libopenmpi-dev"
# --db postgresql://...: a PostgreSQL site store, through libpq
site_pkgs="$build_pkgs libpq-dev"
# the tests' own PostgreSQL server (initdb, postgres, psql), beside the site set
site_test_pkgs="$site_pkgs postgresql"
test_pkgs="$mpi_pkgs $site_test_pkgs slurm-wlm munge libcmocka-dev clang libclang-rt-14-dev sqlite3 procps binutils python3 coreutils strace
    e2fsprogs iproute2 util-linux chromium fonts-dejavu-core python3-fusepy gdb iptables tini"
peers_pkgs="$build_pkgs sysbench stress-ng fio util-linux iperf3 sockperf rt-tests linux-perf hyperfine iputils-ping iproute2"
# what a guest's or container's root is made of, and what a guest boots
root_pkgs="qemu-system-x86 linux-image-cloud-amd64 busybox-static cpio kmod gzip python3 e2fsprogs strace"
# scripts/guest.sh: the root, run by libvirt's daemon (dnsmasq-base: its QEMU driver wants it)
guest_pkgs="$root_pkgs libvirt-daemon-system libvirt-clients dnsmasq-base"
# run --guests: libvirt's C API, and what the guests boot (the guest set; the generic
# kernel for an emulated NIC or AHCI disk, --guest-nic, --guest-disk-bus sata)
guests_pkgs="$build_pkgs $guest_pkgs libvirt-dev linux-image-amd64"
# run --containers: podman and the runtime that runs on hybrid cgroup hosts, Debian's docker
# engine (--container-engine docker), and what the containers' root is made of
containers_pkgs="$build_pkgs $root_pkgs podman runc docker.io"
# run --uml: Debian's User-Mode Linux kernel, and what the instances' root is made of
uml_pkgs="$build_pkgs $root_pkgs user-mode-linux"
# the data benchmarks' URL sources (gfal2 and its plugins) and the xrootd serving them in
# the tests and bench/ (curl and xrdcp are the native tools bench/data_peers.sh compares)
data_pkgs="$build_pkgs libgfal2-dev gfal2-plugin-xrootd gfal2-plugin-http gfal2-plugin-file xrootd-server xrootd-client curl"
# nfs:// sources (libnfs, its nfs-cp beside in bench/data_peers.sh) and the NFS server the
# tests start in a namespace of their own (nfs-ganesha with its VFS backend, rpcbind)
nfs_pkgs="$build_pkgs libnfs-dev libnfs-utils nfs-ganesha nfs-ganesha-vfs rpcbind"
# app --preset's workloads: Debian's own programs (gcc links, so libc6-dev too)
presets_pkgs="xz-utils gcc libc6-dev sqlite3 python3"

list_only=false
if [ "${1:-}" = --list ]; then
    list_only=true
    shift
fi
[ $# -gt 0 ] || set -- build
wanted=""
for set_name in "$@"; do
    case "$set_name" in
        build) wanted="$wanted $build_pkgs" ;;
        mpi) wanted="$wanted $mpi_pkgs" ;;
        test) wanted="$wanted $test_pkgs" ;;
        peers) wanted="$wanted $peers_pkgs" ;;
        guest) wanted="$wanted $guest_pkgs" ;;
        guests) wanted="$wanted $guests_pkgs" ;;
        containers) wanted="$wanted $containers_pkgs" ;;
        uml) wanted="$wanted $uml_pkgs" ;;
        presets) wanted="$wanted $presets_pkgs" ;;
        data) wanted="$wanted $data_pkgs" ;;
        nfs) wanted="$wanted $nfs_pkgs" ;;
        site) wanted="$wanted $site_pkgs" ;;
        *) echo "deps.sh: unknown package set '$set_name' (accepted: build, mpi, test, peers, guest, guests, containers, uml, presets, data, nfs, site)" >&2; exit 2 ;;
    esac
done

if $list_only; then
    printf '%s\n' $wanted | sort -u
    exit 0
fi
missing=""
for pkg in $wanted; do
    case " $missing " in *" $pkg "*) continue ;; esac
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages; run as root:" >&2
    echo "apt-get update && apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Refresh the lists only when an install from the current ones fails.
apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
    apt-get update -q >/dev/null
    apt-get install -y --no-install-recommends $missing >/dev/null
}
