# Shared definitions for the LumaScan VM harness (sourced by the host-side
# scripts, never executed directly). Bash only.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd "$VM_DIR/../../.." && pwd -P)
VM_CACHE=${LUMASCAN_VM_CACHE:-$REPO_ROOT/.vm-cache}

# The modules the guest needs; their dependencies are resolved from each
# module's own .modinfo "depends=" list, so the load order follows the kernel.
#   vivid         virtual camera (loaded last, with parameters, by /init)
#   virtio_pci    the PCI transport the 9p devices sit on
#   9pnet_virtio  9p over virtio
#   9p            the 9p file system
#   overlay       writable (throw-away) layer over the read-only host root
VM_ROOT_MODULES="virtio_pci 9pnet_virtio 9p overlay vivid"

# Debian packages the harness needs on the host, as "command:package".
VM_HOST_TOOLS="qemu-system-x86_64:qemu-system-x86 cpio:cpio v4l2-ctl:v4l-utils xz:xz-utils gdb:gdb"
# busybox-static is checked by file, since a dynamic busybox may also exist.
VM_BUSYBOX=/bin/busybox

vm_log() { printf '[vm] %s\n' "$*" >&2; }
vm_die() { printf '[vm] ERROR: %s\n' "$*" >&2; exit "${VM_DIE_STATUS:-1}"; }

# Everything that goes into the initramfs besides the kernel modules: when any
# of it changes the initramfs is rebuilt (the hash is part of its file name).
vm_initramfs_inputs_hash() {
    {
        cat "$VM_DIR/guest/init.sh"
        echo "$VM_ROOT_MODULES"
        dpkg-query -W -f '${Version}' busybox-static 2>/dev/null || true
    } | sha256sum | cut -c1-16
}
