# Sourced by scripts/guest.sh and tests/system/test_migration.sh: the pieces of a guest's
# initramfs. guest_kernel sets KERNEL and RELEASE (Debian's cloud kernel);
# guest_image_root ROOT MODULE... fills ROOT with busybox, virtperf ($VIRTPERF_BIN, else
# build/virtperf), every library ldd names and those it loads on first use, and MODULE... with their dependencies in load order (ROOT/modules,
# listed in ROOT/modules.order, uncompressed, by file name; those the kernel lacks left
# out); guest_module_paths MODULE... names their files; guest_image_add ROOT PATH adds one of this host's files or
# directories at its own path (what it needs to run with it); the caller writes ROOT/init
# and packs it with guest_image_pack ROOT FILE. Run from the repository's root.

guest_kernel() {
    KERNEL=$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -1)
    [ -n "$KERNEL" ] || { echo "no /boot/vmlinuz-*-cloud-amd64 (linux-image-cloud-amd64)" >&2; return 1; }
    RELEASE=${KERNEL#/boot/vmlinuz-}
}

guest_image_root() {
    local root=$1
    shift
    mkdir -p "$root"/bin "$root"/modules "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/etc
    cp /bin/busybox "$root/bin/busybox"
    for applet in sh mount insmod ip base64 poweroff cat sleep hostname date mkdir; do ln -s busybox "$root/bin/$applet"; done
    local binary=${VIRTPERF_BIN:-build/virtperf}
    cp "$binary" "$root/bin/virtperf"
    guest_image_libraries "$root" "$binary"
    guest_image_loaded "$root"
    echo "root:x:0:0:root:/tmp:/bin/sh" >"$root/etc/passwd"
    : >"$root/modules.order"
    guest_module_paths "$@" | while read -r path; do
        name=$(basename "$path")
        case "$path" in
            *.xz) xz -dc "$path" >"$root/modules/${name%.xz}"; name=${name%.xz} ;;
            *.zst) zstd -qdc "$path" >"$root/modules/${name%.zst}"; name=${name%.zst} ;;
            *) cp "$path" "$root/modules/$name" ;;
        esac
        echo "$name" >>"$root/modules.order"
    done
}

# The files of MODULE... and of what they depend on, in load order, each once; a module
# this kernel lacks is left out (the cloud kernel has no emulated NIC).
guest_module_paths() {
    for module in "$@"; do
        modprobe -S "$RELEASE" --show-depends "$module" 2>/dev/null | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++'
}

# The shared libraries ldd names for FILE (an executable or a library), each at its path.
guest_image_libraries() {
    local root=$1 lib
    for lib in $(ldd "$2" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*'); do
        [ -e "$root$lib" ] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}

# The libraries virtperf loads on first use that a guest's or container's virtperf may
# need (ldd does not name them): libcrypto for --key-file's MACs and data --verify,
# SQLite for a plan's own store; each at its path, with what it needs.
guest_image_loaded() {
    local root=$1 soname lib
    for soname in libcrypto.so.3 libsqlite3.so.0; do
        lib=$(/sbin/ldconfig -p | awk -v name="$soname" '$1 == name && /x86-64/ { print $NF; exit }')
        [ -n "$lib" ] || { echo "guest image: no $soname on this host" >&2; return 1; }
        [ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
        guest_image_libraries "$root" "$lib"
    done
}

# PATH at its own path under ROOT: a symbolic link as a link, and what it leads to; a
# directory whole; and for every ELF file among them (an executable, or a library a
# program loads on first use) its libraries, and for an executable script its
# interpreter. Nothing already there is copied again.
guest_image_add() {
    local root=$1 path=$2 target file interpreter
    if [ -e "$root$path" ] || [ -L "$root$path" ]; then return 0; fi
    mkdir -p "$root$(dirname "$path")"
    if [ -L "$path" ]; then
        cp -P "$path" "$root$path"
        target=$(readlink "$path")
        case "$target" in /*) ;; *) target=$(dirname "$path")/$target ;; esac
        guest_image_add "$root" "$target"
        return
    fi
    cp -a "$path" "$root$path"
    find "$path" -type f | while IFS= read -r file; do
        if head -c 4 "$file" | grep -q ELF; then
            guest_image_libraries "$root" "$file"
        elif [ -x "$file" ] && [ "$(head -c 2 "$file")" = "#!" ]; then
            interpreter=$(head -n 1 "$file" | sed 's/^#! *//; s/ .*//')
            if [ -x "$interpreter" ]; then guest_image_add "$root" "$interpreter"; fi
        fi
    done
    return 0
}

# Uncompressed: a TCG guest's kernel unpacks a plain archive a third of a second sooner
# than the same packed with gzip -1 (3 of 3 alternating rounds), and the host's cache
# has room for twice the size.
guest_image_pack() {
    chmod +x "$1/init"
    (cd "$1" && find . | cpio -o -H newc --quiet) >"$2"
}
