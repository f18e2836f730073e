#!/bin/sh
# /init of the LumaScan test VM (busybox sh, PID 1). Built into the initramfs
# by prepare.sh; run-in-vm.sh drives it through files on the "out" share:
#   /out/.harness/guest.env   settings (sourced), written by the host
#   /out/.harness/job.sh      the command, run as chroot NEWROOT /bin/sh job.sh
# and gets back /out/exit-status, /out/stdout.txt, /out/stderr.txt,
# /out/dmesg.txt, /out/.harness/{init.log,timings,init-error}.
PATH=/bin
export PATH
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin

LOG=/tmp/init.log
log() { echo "[vm-init] $*" | tee -a "$LOG"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
OUT_OK=0

halt_vm() {
    sync
    poweroff -f
    sleep 10  # not reached
}
fatal() {
    log "FATAL: $*"
    if [ "$OUT_OK" = 1 ]; then
        echo "$*" >>/out/.harness/init-error
        cp "$LOG" /out/.harness/init.log
        dmesg >/out/dmesg.txt
    else
        # No share to report through: the console is all the host sees.
        dmesg | tail -n 30
    fi
    halt_vm
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=1777 tmp /tmp
T_INIT=$(uptime_s)

# Modules: everything but vivid first (the shares need virtio + 9p).
while read -r m; do
    [ "$m" = vivid ] && continue
    insmod "/lib/modules/$m.ko" 2>>"$LOG" || fatal "insmod $m failed: $(tail -n1 "$LOG")"
done </lib/modules/load-order

M9P="trans=virtio,version=9p2000.L,msize=262144"
mount -t 9p -o "$M9P" out /out || fatal "cannot mount the out share (9p tag 'out')"
OUT_OK=1
mount -t 9p -o "$M9P,ro,cache=loose" host /host || fatal "cannot mount the host share (9p tag 'host')"
[ -r /out/.harness/guest.env ] || fatal "no /out/.harness/guest.env"
# shellcheck disable=SC1091
. /out/.harness/guest.env
T_SHARES=$(uptime_s)

if [ "${VM_LOAD_VIVID:-1}" = 1 ]; then
    log "insmod vivid $VM_VIVID_PARAMS"
    # shellcheck disable=SC2086  # word splitting wanted: "k=v k=v ..."
    insmod /lib/modules/vivid.ko $VM_VIVID_PARAMS 2>>"$LOG" \
        || fatal "insmod vivid $VM_VIVID_PARAMS failed: $(tail -n1 "$LOG")"
    # The kernel loads a module despite unknown parameters: treat as a typo.
    bad=$(dmesg | sed -n "s/.*vivid: unknown parameter '\([^']*\)' ignored.*/\1/p" | tr '\n' ' ')
    [ -z "$bad" ] || fatal "vivid does not know the parameter(s): $bad"
fi
T_VIVID=$(uptime_s)

# Root for the command: the host's / (read-only 9p), by default under a
# throw-away tmpfs overlay so that /tmp, $HOME etc. are writable.
mode=${VM_ROOT_MODE:-overlay}
if [ "$mode" = overlay ]; then
    mount -t tmpfs -o mode=0755 rw /rw
    mkdir -p /rw/upper /rw/work
    if ! mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot 2>>"$LOG"; then
        log "overlay over the host root failed; falling back to read-only + tmpfs /tmp"
        mode=ro
    fi
fi
if [ "$mode" != overlay ]; then
    mount --bind /host /newroot
    for d in /tmp /var/tmp /run; do
        [ -d "/newroot$d" ] && mount -t tmpfs -o mode=1777 tmp "/newroot$d"
    done
fi
mount --rbind /dev /newroot/dev
mount --bind /proc /newroot/proc
mount --bind /sys /newroot/sys
[ -n "${VM_OUT_HOST:-}" ] || fatal "VM_OUT_HOST not set in guest.env"
mkdir -p "/newroot$VM_OUT_HOST" 2>/dev/null
mount --bind /out "/newroot$VM_OUT_HOST" || fatal "cannot bind the out share to $VM_OUT_HOST"
log "root: $mode; out: $VM_OUT_HOST; $(ls /dev/video* 2>/dev/null | tr '\n' ' ')"

# Run the command: its stdout/stderr go to files on the share and, unless
# VM_ECHO=0, to the console (which the host shows and keeps in console.log).
mkfifo /tmp/so /tmp/se
if [ "${VM_ECHO:-1}" = 1 ]; then
    tee /out/stdout.txt </tmp/so &
    P1=$!
    tee /out/stderr.txt </tmp/se &
    P2=$!
else
    cat </tmp/so >/out/stdout.txt &
    P1=$!
    cat </tmp/se >/out/stderr.txt &
    P2=$!
fi
T_CMD=$(uptime_s)
env -i /bin/chroot /newroot /bin/sh "$VM_OUT_HOST/.harness/job.sh" </dev/null >/tmp/so 2>/tmp/se
rc=$?
T_END=$(uptime_s)

# Anything the command left running (a feeder, a daemon) would keep the
# pipes open: end it. Kernel threads (no /proc/PID/exe) are left alone.
for p in /proc/[0-9]*; do
    p=${p#/proc/}
    case " 1 $P1 $P2 " in *" $p "*) continue ;; esac
    readlink "/proc/$p/exe" >/dev/null 2>&1 && kill -KILL "$p" 2>/dev/null
done
wait "$P1" "$P2"

log "command exited with status $rc"
dmesg >/out/dmesg.txt
cp "$LOG" /out/.harness/init.log
cat >/out/.harness/timings <<EOF
init_start $T_INIT
shares_mounted $T_SHARES
vivid_loaded $T_VIVID
command_start $T_CMD
command_end $T_END
EOF
echo "$rc" >/out/exit-status
umount "/newroot$VM_OUT_HOST" 2>/dev/null
umount /out 2>/dev/null
halt_vm
