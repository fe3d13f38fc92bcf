#!/bin/bash
# Runs virtperf inside a throwaway guest and imports its results here, so a guest and
# this machine can be compared: a transient libvirt domain (qemu:///system; libvirtd must
# run: `libvirtd -d; virtlogd -d` where systemd does not start it) booting Debian's cloud
# kernel straight into a busybox initramfs holding build/virtperf and its libraries,
# virtio-net on libvirt's user network (<interface type='user'>: the guest reaches this
# machine's loopback as 10.0.2.2, so `virtperf serve` here is its time.drift reference). The guest runs `virtperf ARGS --json`, prints the document base64-encoded
# on its serial console between markers and powers off; the document is then imported
# into this machine's results database (with --label, under that label), and the
# guest's own error lines are shown as they came. --setup FILE is a shell script the
# guest starts in the background just before virtperf (a load, a clock step, a sysctl).
# --with-programs first runs the same command here once under strace (one job, one
# repetition, results thrown away) and copies every file the programs it started opened
# into the guest, so that app --preset's workloads (xz, gcc, sqlite3, python3) and a
# --cmd of your own run in the guest as the same binaries on the same libraries (a plan's
# trial runs the whole plan once, as a plan takes no --jobs or --reps).
# A plan (run --plan FILE) is copied into the guest. --disk-dir DIR gives the guest a
# virtual disk: an ext4 image file of --disk-size made
# in DIR (on the storage to test; removed afterwards), attached as virtio-blk or, with
# --disk-bus ide, as an emulated IDE disk (the paravirtual-against-emulated gap the CNAF
# study measured), mounted in the guest at /mnt/disk: give the disk benchmarks
# --path /mnt/disk; virtperf then runs in /mnt/disk, so a plan's `path = .` is the disk.
# (Debian's cloud kernel has no emulated NIC driver: the network is virtio-net only.)
#
# Usage: scripts/guest.sh [--accel tcg|kvm] [--smp N] [--memory MiB] [--label LABEL]
#                         [--timeout SECONDS] [--console FILE] [--setup FILE]
#                         [--with-programs]
#                         [--disk-dir DIR [--disk-size SIZE] [--disk-bus virtio|ide]]
#                         -- run BENCH... [OPTIONS]
# Default: TCG (software emulation), 2 CPUs, 1024 MiB, 600 s, no disk (256M, virtio when
# one is asked for). Exit status: virtperf's in the guest (0, 1 a result failed, 2 it
# refused its input), 2 bad usage here, 3 the guest never reported. Only a run whose
# every result succeeded is imported; a failed one's document is kept in a file, named.
set -u
cd "$(dirname "$0")/.."
accel=tcg smp=2 memory=1024 label="" timeout_s=600 console_copy="" setup=""
disk_dir="" disk_size=256M disk_bus=virtio with_programs=false
synopsis="usage: scripts/guest.sh [--accel tcg|kvm] [--smp N] [--memory MiB] [--label LABEL] [--timeout S] [--console FILE] [--setup FILE] [--with-programs] [--disk-dir DIR [--disk-size SIZE] [--disk-bus virtio|ide]] -- run BENCH..."
usage() { echo "guest.sh: $*; $synopsis" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --accel) [ $# -ge 2 ] && { [ "$2" = tcg ] || [ "$2" = kvm ]; } || usage "--accel takes tcg or kvm"; accel=$2; shift 2 ;;
        --smp) [ $# -ge 2 ] && [ "$2" -ge 1 ] 2>/dev/null || usage "--smp takes a CPU count"; smp=$2; shift 2 ;;
        --memory) [ $# -ge 2 ] && [ "$2" -ge 256 ] 2>/dev/null || usage "--memory takes MiB, at least 256"; memory=$2; shift 2 ;;
        --label) [ $# -ge 2 ] && [ -n "$2" ] || usage "--label takes a name"; label=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] && [ "$2" -ge 10 ] 2>/dev/null || usage "--timeout takes seconds, at least 10"; timeout_s=$2; shift 2 ;;
        --console) [ $# -ge 2 ] || usage "--console takes a file"; console_copy=$2; shift 2 ;;
        --setup) [ $# -ge 2 ] && [ -r "$2" ] || usage "--setup takes a readable shell script"; setup=$2; shift 2 ;;
        --with-programs) with_programs=true; shift ;;
        --disk-dir) [ $# -ge 2 ] && [ -d "$2" ] && [ -w "$2" ] || usage "--disk-dir takes a writable directory"; disk_dir=$2; shift 2 ;;
        --disk-size) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*[MG]$ ]] || usage "--disk-size takes a size such as 256M or 2G"; disk_size=$2; shift 2 ;;
        --disk-bus) [ $# -ge 2 ] && { [ "$2" = virtio ] || [ "$2" = ide ]; } || usage "--disk-bus takes virtio or ide"; disk_bus=$2; shift 2 ;;
        -h|--help) echo "$synopsis"; sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        --) shift; break ;;
        *) usage "unknown argument '$1'" ;;
    esac
done
[ $# -ge 1 ] && [ "$1" = run ] || usage "give the guest's virtperf command after --, starting with run"

scripts/deps.sh build guest || exit 2
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null || exit 2
. scripts/guest_image.sh
guest_kernel || exit 2

virsh -c qemu:///system version >/dev/null 2>&1 || {
    echo "guest.sh: libvirt's qemu:///system does not answer; start libvirtd (systemctl start libvirtd, or 'libvirtd -d; virtlogd -d' where systemd does not run)" >&2
    exit 2
}
WORK=$(mktemp -d /tmp/vp-guest.XXXXXX)
chmod 755 "$WORK" # libvirt's QEMU user reads the initramfs here
DOMAIN=virtperf-guestsh-$$
DOMAIN_STARTED=false
DISK_IMAGE=
cleanup() {
    $DOMAIN_STARTED && virsh -c qemu:///system destroy "$DOMAIN" >/dev/null 2>&1
    [ -n "$DISK_IMAGE" ] && rm -f "$DISK_IMAGE"
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The initramfs (scripts/guest_image.sh): busybox, virtperf and its libraries, the
# virtio modules (virtio-rng: random numbers at once, as in run --guests), the programs
# --with-programs found, the command, and an init to run it.
root=$WORK/root
modules="virtio_pci virtio_rng virtio_net"
[ -z "$disk_dir" ] || modules="$modules $([ "$disk_bus" = ide ] && echo "ata_piix sd_mod" || echo virtio_blk)"
guest_image_root "$root" $modules
if $with_programs; then
    # Every absolute path the trial run's processes opened, executed or looked at that is a
    # file here (not under /proc, /sys, /dev or /tmp), copied to the same path in the guest.
    echo "guest.sh: a trial run here under strace, to find the files the programs need" >&2
    strace -f -qq -o "$WORK/trace" -e trace=execve,open,openat,stat,newfstatat,access,readlink \
        build/virtperf "$@" $(printf '%s\n' "$@" | grep -q '^--plan' ||
                              echo --jobs 1 --reps 1 --warmup 0) --quiet --db "$WORK/trial.db" \
        >"$WORK/trial.out" 2>&1 ||
        { echo "guest.sh: the trial run here failed:" >&2; tail -n 5 "$WORK/trial.out" >&2; exit 2; }
    grep -oE '"/[^"]+"' "$WORK/trace" | tr -d '"' | sort -u | grep -vE '^/(proc|sys|dev|tmp)/' |
        while IFS= read -r path; do
            [ -f "$path" ] || continue
            mkdir -p "$root$(dirname "$path")"
            [ -e "$root$path" ] || cp -L "$path" "$root$path"
        done
    echo "guest.sh: $(find "$root" -type f | wc -l) files, $(du -sm "$root" | cut -f1) MiB in the guest" >&2
fi
# A plan file (run --plan FILE) goes into the guest as /plan.ini, its argument rewritten.
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --plan) [ $# -ge 2 ] && [ -r "$2" ] || usage "--plan takes a readable plan file"
                cp "$2" "$root/plan.ini"; args+=(--plan /plan.ini); shift 2 ;;
        --plan=*) [ -r "${1#--plan=}" ] || usage "--plan takes a readable plan file"
                  cp "${1#--plan=}" "$root/plan.ini"; args+=(--plan /plan.ini); shift ;;
        *) args+=("$1"); shift ;;
    esac
done
set -- "${args[@]}"
printf '%s\n' "$@" >"$root/virtperf.args"
if [ -n "$setup" ]; then cp "$setup" "$root/setup.sh"; else : >"$root/setup.sh"; fi
cat >"$root/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/usr/bin:/sbin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
hostname virtperf-guest
while read -r module; do insmod "/modules/$module"; done </modules.order
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
workdir=/tmp
for device in /dev/vda /dev/sda; do
    [ -b "$device" ] || continue
    mkdir -p /mnt/disk && mount -t ext4 "$device" /mnt/disk && echo "VP-GUEST-DISK $device" &&
        workdir=/mnt/disk
done
set --
while IFS= read -r arg; do set -- "$@" "$arg"; done </virtperf.args
cd "$workdir"
sh /setup.sh </dev/null >/tmp/setup.log 2>&1 &
HOME=/tmp VIRTPERF_DB=/tmp/results.db /bin/virtperf "$@" --json /tmp/document.json 2>/tmp/stderr.log
echo "VP-GUEST-STATUS $?"
echo "VP-GUEST-STDERR-BEGIN"
cat /tmp/stderr.log
echo "VP-GUEST-STDERR-END"
echo "VP-GUEST-BEGIN"
base64 /tmp/document.json
echo "VP-GUEST-END"
poweroff -f
INIT
guest_image_pack "$root" "$WORK/initramfs.cpio"

disk_xml=""
if [ -n "$disk_dir" ]; then
    DISK_IMAGE=$(mktemp "$disk_dir/vp-guest-disk.XXXXXX") || exit 2
    truncate -s "$disk_size" "$DISK_IMAGE" && mkfs.ext4 -q -F "$DISK_IMAGE" ||
        { echo "guest.sh: cannot make the disk image in $disk_dir" >&2; exit 2; }
    target="<target dev='vda' bus='virtio'/>"
    [ "$disk_bus" = ide ] && target="<target dev='hda' bus='ide'/>"
    disk_xml="<disk type='file' device='disk'><driver name='qemu' type='raw' cache='none'/><source file='$DISK_IMAGE'/>$target</disk>"
fi
domain_type=qemu cpu_xml=""
[ "$accel" = kvm ] && domain_type=kvm cpu_xml="<cpu mode='host-passthrough'/>"
cat >"$WORK/domain.xml" <<XML
<domain type='$domain_type'>
  <name>$DOMAIN</name>
  <memory unit='MiB'>$memory</memory>
  <vcpu>$smp</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$KERNEL</kernel>
    <initrd>$WORK/initramfs.cpio</initrd>
    <cmdline>console=ttyS0 rdinit=/init panic=-1 quiet</cmdline>
  </os>
  $cpu_xml
  <features><acpi/></features>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <serial type='file'><source path='$WORK/console.log'/><target port='0'/></serial>
    <interface type='user'><model type='virtio'/></interface>
    $disk_xml
    <rng model='virtio'><rate period='1000' bytes='4096'/><backend model='random'>/dev/urandom</backend></rng>
    <memballoon model='none'/>
  </devices>
</domain>
XML
virsh -c qemu:///system create "$WORK/domain.xml" >"$WORK/virsh.log" 2>&1 ||
    { echo "guest.sh: libvirt did not start the guest: $(grep -v '^$' "$WORK/virsh.log" | tail -n 2)" >&2; exit 2; }
DOMAIN_STARTED=true
# the domain is transient: it is gone once the guest powers off
deadline=$((SECONDS + timeout_s))
while virsh -c qemu:///system domstate "$DOMAIN" >/dev/null 2>&1 && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
if virsh -c qemu:///system domstate "$DOMAIN" >/dev/null 2>&1; then
    echo "guest.sh: the guest did not finish within $timeout_s s" >&2
    virsh -c qemu:///system destroy "$DOMAIN" >/dev/null 2>&1
fi
DOMAIN_STARTED=false
[ -z "$console_copy" ] || cp "$WORK/console.log" "$console_copy"
tr -d '\r' <"$WORK/console.log" | sed -n '/^VP-GUEST-BEGIN$/,/^VP-GUEST-END$/p' | sed '1d;$d' |
    base64 -d >"$WORK/document.json" 2>/dev/null
status=$(tr -d '\r' <"$WORK/console.log" | awk '$1 == "VP-GUEST-STATUS" { print $2 }')
# The guest's own error lines, as it wrote them.
tr -d '\r' <"$WORK/console.log" | sed -n '/^VP-GUEST-STDERR-BEGIN$/,/^VP-GUEST-STDERR-END$/p' |
    sed '1d;$d' | sed 's/.*\x1b\[K//' | grep -v '^$' | sed 's/^/guest: /' >&2
if [ -n "$disk_dir" ] && ! grep -q "^VP-GUEST-DISK" <(tr -d '\r' <"$WORK/console.log"); then
    echo "guest.sh: the guest did not mount its disk at /mnt/disk" >&2
fi
if [ -z "$status" ]; then
    echo "guest.sh: the guest reported nothing; its console ends with:" >&2
    tail -n 15 "$WORK/console.log" >&2
    exit 3
fi
if [ ! -s "$WORK/document.json" ] || ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
        "$WORK/document.json" 2>/dev/null; then
    echo "guest.sh: the guest's virtperf exited $status without a results document (its error lines are above)" >&2
    [ "$status" -ne 0 ] || status=3
    exit "$status"
fi
# The guest's table (its progress line's redraws dropped), then the import here.
tr -d '\r' <"$WORK/console.log" | sed 's/.*\x1b\[K//' | sed -n '/^run [0-9]/,/^stored as run/p'
if [ "$status" -ne 0 ]; then # a failed run is not to be compared as if it had measured
    kept=$(mktemp "${TMPDIR:-/tmp}/vp-guest-failed.XXXXXX.json") && cp "$WORK/document.json" "$kept" &&
        echo "guest.sh: the guest's virtperf exited $status (a result failed): not imported${label:+ as '$label'}; its document is $kept ('virtperf results import $kept' keeps it anyway)" >&2
    exit "$status"
fi
if [ -n "$label" ]; then
    python3 - "$WORK/document.json" "$label" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
document["run"]["label"] = sys.argv[2]
json.dump(document, open(sys.argv[1], "w"))
PY
fi
build/virtperf results import "$WORK/document.json" || exit 2
exit "$status"
