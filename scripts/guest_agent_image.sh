#!/bin/bash
# The initramfs of the guests `virtperf run --guests` starts (its helper: virtperf runs it
# when the image it needs is not in its cache). Usage: guest_agent_image.sh VIRTPERF OUT
# [--kernel PATH] [--root] [--files LIST]: --kernel names the kernel the guests boot
# (its modules go in; default: Debian's newest cloud kernel); with --root, OUT is the
# root directory itself (the containers' --rootfs), not packed; with --files, every path
# LIST names (one a line: this host's programs and their data, from --guest-programs and
# the benchmarks) is put in at its own path (scripts/guest_image.sh's guest_image_add).
# Packs busybox, VIRTPERF and its libraries, and the modules of the virtio PCI bus, its
# console (the host's channel), network, block and SCSI devices, the emulated NICs
# (e1000, e1000e, rtl8139's 8139cp) and disks (IDE, AHCI) and ext4, those the kernel has
# as modules (the cloud kernel has no emulated NIC: core/guest_devices.c),
# with an init that sets the address the host gave on the kernel command line
# (virtperf.address=A/P, virtperf.gateway=G), loads the disks' modules and mounts the disk
# at /mnt/disk when it was given one (virtperf.disk=1), loads NFS's modules and mounts an
# export when asked (virtperf.mount=TYPE;SOURCE;DIR;OPTIONS: --guest-mount; a failure's
# words in /virtperf-setup.err, which the agent gives as its verdict),
# and runs `virtperf guest-agent` until the host says to power off: on the virtio-serial
# port, or on the serial line virtperf.tty=PATH names (a UML instance, whose kernel boots
# the root directory itself).
set -eu
usage() { echo "usage: guest_agent_image.sh VIRTPERF OUT [--kernel PATH] [--root] [--files LIST]" >&2; exit 2; }
[ $# -ge 2 ] && [ -x "$1" ] || usage
binary=$1 out=$2 as_root=false files="" kernel=""
shift 2
while [ $# -gt 0 ]; do
    case "$1" in
        --root) as_root=true; shift ;;
        --kernel) [ $# -ge 2 ] && [ -r "$2" ] || usage; kernel=$2; shift 2 ;;
        --files) [ $# -ge 2 ] && [ -r "$2" ] || usage; files=$2; shift 2 ;;
        *) usage ;;
    esac
done
helpers=$(dirname "$0")
. "$helpers/guest_image.sh"
if [ -n "$kernel" ]; then KERNEL=$kernel RELEASE=${kernel#/boot/vmlinuz-}; else guest_kernel; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vp-guest-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
always="virtio_pci virtio_rng virtio_console virtio_net e1000 e1000e mii 8139cp"
disk="virtio_blk virtio_scsi ata_piix ahci sd_mod ext4"
nfs="nfsv3 nfsv4"
# shellcheck disable=SC2086 # lists of modules
VIRTPERF_BIN=$binary guest_image_root "$work/root" $always $disk $nfs
# the modules only a disk needs (its buses, SCSI, ext4), loaded only when the host gave one
# (virtperf.disk=1): the 'pc' machine's IDE controller is always there, and probing it,
# with SCSI's start, is half a second of a TCG guest's boot; NFS's, only for a mount
# (modules.always, then modules.disk or modules.nfs: each in load order, with what it needs
# that the first has not)
# shellcheck disable=SC2086 # lists of modules
module_names() { guest_module_paths "$@" | sed -E 's|.*/||; s/\.(xz|zst)$//'; }
module_names $always >"$work/always"
grep -xF -f "$work/always" "$work/root/modules.order" >"$work/root/modules.always" || true
# shellcheck disable=SC2086
module_names $disk | grep -vxF -f "$work/always" >"$work/root/modules.disk" || true
# shellcheck disable=SC2086
module_names $nfs | grep -vxF -f "$work/always" >"$work/root/modules.nfs" || true
if [ -n "$files" ]; then
    while IFS= read -r path; do guest_image_add "$work/root" "$path"; done <"$files"
fi
cat >"$work/root/init" <<'INIT'
#!/bin/sh
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
cmdline=" $(cat /proc/cmdline) "
modules=/modules.always
case "$cmdline" in *" virtperf.disk=1 "*) modules="$modules /modules.disk" ;; esac
# shellcheck disable=SC2086 # one or two lists
cat $modules | while read -r module; do insmod "/modules/$module" 2>/dev/null; done
ip link set lo up
channel=""
for word in $cmdline; do
    case "$word" in
        virtperf.name=*) hostname "${word#virtperf.name=}" ;;
        virtperf.tty=*) channel="--tty ${word#virtperf.tty=}" ;;
        virtperf.address=*) ip link set eth0 up && ip addr add "${word#virtperf.address=}" dev eth0 ;;
        virtperf.gateway=*) ip route add default via "${word#virtperf.gateway=}" ;;
        virtperf.mount=*) mount_spec=${word#virtperf.mount=} ;;
    esac
done
if [ -n "${mount_spec:-}" ]; then
    while read -r module; do insmod "/modules/$module" 2>/dev/null; done </modules.nfs
    IFS=';' read -r type source dir options <<SPEC
$mount_spec
SPEC
    mkdir -p "$dir"
    mount -t "$type" ${options:+-o "$options"} "$source" "$dir" 2>/tmp/mount.err ||
        echo "--guest-mount: mount -t $type ${options:+-o $options} $source $dir failed in the guest: $(cat /tmp/mount.err)" >/virtperf-setup.err
fi
workdir=/tmp
for device in /dev/vda /dev/sda; do
    [ -b "$device" ] || continue
    mkdir -p /mnt/disk && mount -t ext4 "$device" /mnt/disk && workdir=/mnt/disk
done
cd "$workdir"
HOME=/tmp VIRTPERF_DB=/tmp/results.db /bin/virtperf guest-agent $channel
poweroff -f
INIT
if $as_root; then
    chmod +x "$work/root/init"
    mv "$work/root" "$out"
    exit 0
fi
guest_image_pack "$work/root" "$work/initramfs.cpio"
mv "$work/initramfs.cpio" "$out"
