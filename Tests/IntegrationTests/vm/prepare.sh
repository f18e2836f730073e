#!/usr/bin/env bash
# Prepare everything the LumaScan test VM needs, caching it under .vm-cache/.
#
#   prepare.sh [--quiet] [--force]
#
# Idempotent: a rerun with a warm cache only checks that the host tools are
# installed, resolves the current Debian kernel package and finds its cached
# vmlinux, modules and initramfs. Steps on a cold machine (as root):
#   1. apt-get install what is missing (apt-get update first, only if needed):
#      qemu-system-x86 busybox-static cpio v4l-utils xz-utils
#   2. resolve the kernel package linux-image-amd64 depends on (or
#      $LUMASCAN_VM_KERNEL_PKG), apt-get download it, dpkg -x it
#   3. pull the uncompressed vmlinux ELF out of the bzImage (it boots faster
#      under TCG than the self-decompressing bzImage) and the needed modules,
#      in dependency order, decompressed
#   4. build the initramfs: busybox-static + guest/init.sh as /init + modules
#   5. write .vm-cache/current.env, which run-in-vm.sh reads
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUIET=0 FORCE=0
for arg in "$@"; do
    case $arg in
        -q|--quiet) QUIET=1 ;;
        -f|--force) FORCE=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) vm_die "unknown argument: $arg (try --help)" ;;
    esac
done
say() { [ "$QUIET" = 1 ] || vm_log "$@"; }

export DEBIAN_FRONTEND=noninteractive
T0=$(date +%s.%N)
mkdir -p "$VM_CACHE"
# One prepare at a time (parallel test runs may all call it).
exec 9>"$VM_CACHE/.lock"
flock 9

# --- 1. host packages -------------------------------------------------------
APT_UPDATED=0
apt_update_once() {
    if [ "$APT_UPDATED" = 0 ]; then
        say "apt-get update"
        apt-get update -qq >"$VM_CACHE/apt.log" 2>&1 \
            || { tail -n 20 "$VM_CACHE/apt.log" >&2; vm_die "apt-get update failed (see $VM_CACHE/apt.log)"; }
        APT_UPDATED=1
    fi
}

missing=()
for pair in $VM_HOST_TOOLS; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
# Want the static busybox specifically: it is copied into the initramfs.
if [ "$(dpkg-query -W -f '${Status}' busybox-static 2>/dev/null || true)" != "install ok installed" ]; then
    missing+=(busybox-static)
fi
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || vm_die "missing packages (${missing[*]}) and not root: install them first"
    apt_update_once
    say "apt-get install ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$VM_CACHE/apt.log" 2>&1 \
        || { tail -n 20 "$VM_CACHE/apt.log" >&2; vm_die "apt-get install ${missing[*]} failed (see $VM_CACHE/apt.log)"; }
fi
case $(LC_ALL=C ldd "$VM_BUSYBOX" 2>&1) in
    *"not a dynamic"*|*"statically linked"*) ;;
    *) vm_die "$VM_BUSYBOX is not a static busybox (is busybox-static installed?)" ;;
esac

# --- 2. resolve the kernel -------------------------------------------------
resolve_kernel_pkg() {
    apt-cache depends linux-image-amd64 2>/dev/null \
        | sed -n 's/^ *|\{0,1\}Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1 || true
}
KPKG=${LUMASCAN_VM_KERNEL_PKG:-}
if [ -z "$KPKG" ]; then
    KPKG=$(resolve_kernel_pkg)
    if [ -z "$KPKG" ]; then
        apt_update_once
        KPKG=$(resolve_kernel_pkg)
    fi
    [ -n "$KPKG" ] || vm_die "cannot resolve the kernel package of linux-image-amd64 (apt-cache depends found none)"
fi
KVER=${KPKG#linux-image-}
KDIR=$VM_CACHE/kernel-$KVER
say "kernel: $KPKG"

# --- 3. kernel + modules ----------------------------------------------------
extract_kernel() {
    local debs=$VM_CACHE/debs deb tmp
    mkdir -p "$debs"
    deb=$(ls -1 "$debs/${KPKG}"_*.deb 2>/dev/null | tail -n1 || true)
    if [ -z "$deb" ]; then
        say "apt-get download $KPKG"
        if ! (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$KPKG" >&2); then
            apt_update_once
            (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$KPKG" >&2) \
                || vm_die "apt-get download $KPKG failed"
        fi
        deb=$(ls -1 "$debs/${KPKG}"_*.deb | tail -n1)
    fi
    tmp=$(mktemp -d "$VM_CACHE/.extract.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    say "dpkg -x $(basename "$deb")"
    dpkg -x "$deb" "$tmp/pkg"
    rm -rf "$KDIR.new"
    mkdir -p "$KDIR.new/modules"

    # The bzImage carries the kernel as an xz stream (magic FD 37 7A 58 5A 00);
    # the first stream that unpacks to an ELF file is vmlinux.
    local vmlinuz=$tmp/pkg/boot/vmlinuz-$KVER off found=0
    [ -f "$vmlinuz" ] || vm_die "no boot/vmlinuz-$KVER in $deb"
    for off in $(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | cut -d: -f1); do
        tail -c +$((off + 1)) "$vmlinuz" | xz -dc --single-stream >"$KDIR.new/vmlinux" 2>/dev/null || true
        if [ "$(head -c4 "$KDIR.new/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
            found=1
            break
        fi
    done
    [ "$found" = 1 ] || vm_die "no xz-compressed ELF kernel found inside $vmlinuz"
    say "vmlinux: xz stream at offset $off, $(stat -c %s "$KDIR.new/vmlinux") bytes"
    cp "$tmp/pkg/boot/config-$KVER" "$KDIR.new/config" 2>/dev/null || true

    # Modules: name -> file, then a depth-first walk over "depends=".
    local mroot=$tmp/pkg/lib/modules/$KVER f n
    [ -d "$mroot/kernel" ] || vm_die "no lib/modules/$KVER/kernel in $deb"
    declare -A MFILE=() DONE=()
    while IFS= read -r f; do
        n=${f##*/}; n=${n%%.ko*}; n=${n//-/_}
        MFILE[$n]=$f
    done < <(find "$mroot/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
    ORDER=()
    modcat() {
        case $1 in
            *.xz) xz -dc "$1" ;;
            *.zst) zstd -qdc "$1" ;;
            *.gz) gzip -dc "$1" ;;
            *) cat "$1" ;;
        esac
    }
    visit() {
        local m=${1//-/_} dep deps
        [ -z "${DONE[$m]:-}" ] || return 0
        DONE[$m]=1
        if [ -z "${MFILE[$m]:-}" ]; then
            grep -q "/${m//_/[-_]}\.ko$" "$mroot/modules.builtin" 2>/dev/null \
                && return 0  # built into the kernel
            vm_die "module $m not found in $KPKG"
        fi
        deps=$(modcat "${MFILE[$m]}" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -n1 || true)
        for dep in ${deps//,/ }; do visit "$dep"; done
        modcat "${MFILE[$m]}" >"$KDIR.new/modules/$m.ko"
        ORDER+=("$m")
    }
    for n in $VM_ROOT_MODULES; do visit "$n"; done
    printf '%s\n' "${ORDER[@]}" >"$KDIR.new/modules/load-order"
    say "modules: ${ORDER[*]}"

    rm -rf "$KDIR"
    mv "$KDIR.new" "$KDIR"
    rm -rf "$tmp"
    trap - EXIT
    # Older kernels (package and extracted files) are of no further use.
    find "$debs" -name 'linux-image-*.deb' ! -name "${KPKG}_*" -delete
    find "$VM_CACHE" -maxdepth 1 -name 'kernel-*' ! -name "kernel-$KVER" -exec rm -rf {} +
}

if [ "$FORCE" = 1 ] || [ ! -s "$KDIR/vmlinux" ] || [ ! -s "$KDIR/modules/load-order" ]; then
    extract_kernel
else
    say "cached: $KDIR"
fi

# --- 4. initramfs ------------------------------------------------------------
HASH=$(vm_initramfs_inputs_hash)
INITRD=$KDIR/initramfs-$HASH.cpio.gz
if [ "$FORCE" = 1 ] || [ ! -s "$INITRD" ]; then
    say "building initramfs"
    stage=$(mktemp -d "$VM_CACHE/.initramfs.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$stage'" EXIT
    mkdir -p "$stage"/{bin,dev,proc,sys,tmp,etc,lib/modules,host,out,rw,newroot}
    cp "$VM_BUSYBOX" "$stage/bin/busybox"
    ln -s busybox "$stage/bin/sh"
    install -m 0755 "$VM_DIR/guest/init.sh" "$stage/init"
    cp "$KDIR"/modules/*.ko "$KDIR/modules/load-order" "$stage/lib/modules/"
    (cd "$stage" && find . -mindepth 1 | LC_ALL=C sort \
        | cpio -o -H newc -R 0:0 --quiet | gzip -6n) >"$INITRD.tmp"
    mv "$INITRD.tmp" "$INITRD"
    rm -rf "$stage"
    trap - EXIT
    find "$KDIR" -name 'initramfs-*.cpio.gz' ! -name "${INITRD##*/}" -delete
    say "initramfs: $(stat -c %s "$INITRD") bytes"
fi

# --- 5. record what run-in-vm.sh boots ---------------------------------------
{
    echo "VM_KPKG=$KPKG"
    echo "VM_KVER=$KVER"
    echo "VM_KERNEL=$KDIR/vmlinux"
    echo "VM_INITRD=$INITRD"
    echo "VM_INITRD_HASH=$HASH"
} >"$VM_CACHE/current.env.tmp"
mv "$VM_CACHE/current.env.tmp" "$VM_CACHE/current.env"
say "ready in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s ($VM_CACHE/current.env)"
