#!/usr/bin/env bash
# Boot the LumaScan test VM (qemu/TCG, Debian kernel, vivid virtual camera),
# run one command inside it on the host's own file system, power off.
#
#   run-in-vm.sh [OPTIONS] -- COMMAND [ARG...]
#
# COMMAND runs as root in `chroot <host root> /bin/sh`, in the same working
# directory as on the host, exec'd with its arguments as given (no shell
# re-parsing; use `-- sh -c '...'` for shell syntax). The host root is
# read-only; by default a throw-away tmpfs overlay makes it look writable.
# The out dir is the one writable place that reaches the host: it appears in
# the guest at the same path as on the host, and in $LUMASCAN_VM_OUT.
#
# Options (each has an environment variable; the option wins):
#   --timeout S          hard limit for boot + command + poweroff, seconds;
#                        qemu is killed after it  [LUMASCAN_VM_TIMEOUT, 180]
#   --out DIR            results dir, created if missing; harness files in it
#                        are replaced, others left alone
#                        [LUMASCAN_VM_OUT, else a new mktemp -d, printed]
#   --cwd DIR            working directory in the guest  [$PWD]
#   --vivid-params 'K=V ...'  replace the default vivid module parameters
#                        [LUMASCAN_VM_VIVID_PARAMS]
#   --vivid-param K=V    append one vivid parameter (repeatable; a later
#                        value of the same parameter wins)
#   --no-vivid           do not load vivid at all
#   --env NAME[=VALUE]   pass a variable to COMMAND (repeatable); PATH, HOME,
#                        LANG, LC_*, TERM, TZ, TMPDIR and every LUMASCAN_*
#                        variable are passed anyway
#   --root overlay|ro    overlay (default): host / + tmpfs overlay, writable,
#                        changes discarded; ro: host / read-only with tmpfs on
#                        /tmp /var/tmp /run  [LUMASCAN_VM_ROOT]
#   --mem MB             guest memory  [LUMASCAN_VM_MEM, 1024]
#   -q, --quiet          do not echo the guest console to stdout
#                        [LUMASCAN_VM_QUIET=1]
# Other environment: LUMASCAN_VM_CACHE (cache dir, default <repo>/.vm-cache),
#   LUMASCAN_VM_QEMU_ARGS (extra qemu arguments, word-split),
#   LUMASCAN_VM_APPEND (extra kernel command-line words).
# COMMAND sees LUMASCAN_IN_VM=1 and LUMASCAN_VM_OUT=<out dir>.
#
# Out dir afterwards: exit-status, stdout.txt, stderr.txt, dmesg.txt (full
# guest kernel log), console.log (serial console: init messages + the
# command's output interleaved), qemu-stderr.txt, timings.txt, and .harness/
# (guest.env, job.sh, init.log, init-error when setup failed).
#
# Exit status: COMMAND's own status (0-255; 126/127: not executable / not
# found, as in sh); 124: the timeout hit and qemu was killed; 125: the VM could
# not run the command (bad usage, prepare failed, qemu failed to start, guest
# setup failed, no result) -- a line starting "[vm] ERROR" says why.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
VM_DIE_STATUS=125

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

DEFAULT_VIVID_PARAMS="n_devs=1 node_types=0x101 num_inputs=1 input_types=0x3 num_outputs=1 output_types=0x1"
TIMEOUT=${LUMASCAN_VM_TIMEOUT:-180}
OUT=${LUMASCAN_VM_OUT:-}
CWD=$PWD
VIVID_PARAMS=${LUMASCAN_VM_VIVID_PARAMS:-$DEFAULT_VIVID_PARAMS}
LOAD_VIVID=1
ROOT_MODE=${LUMASCAN_VM_ROOT:-overlay}
MEM=${LUMASCAN_VM_MEM:-1024}
QUIET=${LUMASCAN_VM_QUIET:-0}
EXTRA_ENV=()

need() { [ $# -ge 2 ] && [ -n "$2" ] || vm_die "$1 needs a value (try --help)"; }
while [ $# -gt 0 ]; do
    case $1 in
        --timeout) need "$@"; TIMEOUT=$2; shift 2 ;;
        --timeout=*) TIMEOUT=${1#*=}; shift ;;
        --out) need "$@"; OUT=$2; shift 2 ;;
        --out=*) OUT=${1#*=}; shift ;;
        --cwd) need "$@"; CWD=$2; shift 2 ;;
        --cwd=*) CWD=${1#*=}; shift ;;
        --vivid-params) [ $# -ge 2 ] || vm_die "--vivid-params needs a value"; VIVID_PARAMS=$2; shift 2 ;;
        --vivid-params=*) VIVID_PARAMS=${1#*=}; shift ;;
        --vivid-param) need "$@"; VIVID_PARAMS="$VIVID_PARAMS $2"; shift 2 ;;
        --vivid-param=*) VIVID_PARAMS="$VIVID_PARAMS ${1#*=}"; shift ;;
        --no-vivid) LOAD_VIVID=0; shift ;;
        --env) need "$@"; EXTRA_ENV+=("$2"); shift 2 ;;
        --env=*) EXTRA_ENV+=("${1#*=}"); shift ;;
        --root) need "$@"; ROOT_MODE=$2; shift 2 ;;
        --root=*) ROOT_MODE=${1#*=}; shift ;;
        --mem) need "$@"; MEM=$2; shift 2 ;;
        --mem=*) MEM=${1#*=}; shift ;;
        -q|--quiet) QUIET=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        *) vm_die "unknown option '$1'; the command goes after '--' (try --help)" ;;
    esac
done
[ $# -gt 0 ] || vm_die "no command given: run-in-vm.sh [OPTIONS] -- COMMAND [ARG...]"
[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || vm_die "--timeout must be a positive whole number of seconds"
[[ $MEM =~ ^[0-9]+$ ]] || vm_die "--mem must be a number of MiB"
case $ROOT_MODE in overlay|ro) ;; *) vm_die "--root must be overlay or ro" ;; esac
case $VIVID_PARAMS in *[\'\"\\\$\`]*) vm_die "vivid parameters must not contain quotes, \\, \$ or \`" ;; esac
CWD=$(cd "$CWD" 2>/dev/null && pwd -P) || vm_die "--cwd: no such directory"

# --- the cached kernel + initramfs (prepare.sh builds them when needed) ------
ensure_prepared() {
    [ -r "$VM_CACHE/current.env" ] || return 1
    # shellcheck disable=SC1091
    . "$VM_CACHE/current.env"
    [ -s "${VM_KERNEL:-}" ] && [ -s "${VM_INITRD:-}" ] \
        && [ "${VM_INITRD_HASH:-}" = "$(vm_initramfs_inputs_hash)" ]
}
if ! ensure_prepared; then
    vm_log "VM image missing or stale: running prepare.sh"
    "$VM_DIR/prepare.sh" --quiet || vm_die "prepare.sh failed"
    ensure_prepared || vm_die "prepare.sh did not produce a usable $VM_CACHE/current.env"
fi
command -v qemu-system-x86_64 >/dev/null || vm_die "qemu-system-x86_64 not found (run prepare.sh)"

# --- out dir -------------------------------------------------------------------
if [ -z "$OUT" ]; then
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/lumascan-vm.XXXXXX") || vm_die "mktemp failed"
    vm_log "out dir: $OUT"
fi
mkdir -p "$OUT" || vm_die "cannot create out dir $OUT"
OUT=$(cd "$OUT" && pwd -P)
case $OUT in
    /|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) vm_die "unsuitable out dir: $OUT" ;;
esac
rm -rf "$OUT/.harness" "$OUT"/{exit-status,stdout.txt,stderr.txt,dmesg.txt,console.log,qemu-stderr.txt,timings.txt}
mkdir -p "$OUT/.harness"

q() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }  # sh single-quoting

{
    echo "VM_OUT_HOST=$(q "$OUT")"
    echo "VM_VIVID_PARAMS=$(q "$VIVID_PARAMS")"
    echo "VM_LOAD_VIVID=$LOAD_VIVID"
    echo "VM_ROOT_MODE=$ROOT_MODE"
    echo "VM_ECHO=$([ "$QUIET" = 1 ] && echo 0 || echo 1)"
} >"$OUT/.harness/guest.env"

{
    echo "# generated by run-in-vm.sh; run in the guest as: chroot / /bin/sh job.sh"
    while IFS= read -r name; do
        case $name in
            PATH|HOME|LANG|LC_*|TERM|TZ|TMPDIR|LUMASCAN_*) echo "export $name=$(q "${!name}")" ;;
        esac
    done < <(compgen -e)
    for e in "${EXTRA_ENV[@]}"; do
        name=${e%%=*}
        [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || vm_die "--env: bad variable name '$name'"
        if [[ $e == *=* ]]; then
            echo "export $name=$(q "${e#*=}")"
        elif [ -n "${!name+set}" ]; then
            echo "export $name=$(q "${!name}")"
        fi
    done
    echo "export LUMASCAN_IN_VM=1 LUMASCAN_VM_OUT=$(q "$OUT")"
    echo "cd $(q "$CWD") || { echo 'run-in-vm: cannot cd to $(q "$CWD") in the VM' >&2; exit 125; }"
    printf 'exec'
    for a in "$@"; do printf ' %s' "$(q "$a")"; done
    echo
} >"$OUT/.harness/job.sh"

# --- boot ------------------------------------------------------------------------
QEMU=(
    qemu-system-x86_64
    -machine accel=tcg -m "$MEM" -smp 1
    -nodefaults -no-user-config -display none -serial stdio
    -no-reboot -nic none
    -kernel "$VM_KERNEL" -initrd "$VM_INITRD"
    -append "console=ttyS0 panic=-1 loglevel=3 ${LUMASCAN_VM_APPEND:-}"
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap
    -virtfs "local,path=${OUT//,/,,},mount_tag=out,security_model=none,multidevs=remap"
)
# shellcheck disable=SC2206
[ -n "${LUMASCAN_VM_QEMU_ARGS:-}" ] && QEMU+=(${LUMASCAN_VM_QEMU_ARGS})

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lumascan-vm-run.XXXXXX") || vm_die "mktemp failed"
QPID='' WPID='' CPID=''
cleanup() {
    [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null
    [ -n "$QPID" ] && kill -KILL "$QPID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'vm_log "interrupted: killing qemu"; exit 130' INT TERM HUP

mkfifo "$TMP/console"
if [ "$QUIET" = 1 ]; then
    sed -u "s/\r$//" <"$TMP/console" >"$OUT/console.log" &
else
    sed -u "s/\r$//" <"$TMP/console" | tee "$OUT/console.log" &
fi
CPID=$!

T0=$(date +%s.%N)
"${QEMU[@]}" </dev/null >"$TMP/console" 2>"$OUT/qemu-stderr.txt" &
QPID=$!
# The watchdog polls rather than waiting on a signal: a caller may start this script with SIGTERM blocked or
# ignored (Foundation's Process spawns from a thread that blocks signals), and then a TERM trap never fires.
(
    end=$((SECONDS + TIMEOUT))
    while kill -0 "$QPID" 2>/dev/null; do
        if [ "$SECONDS" -ge "$end" ]; then
            touch "$TMP/timed-out"
            kill -KILL "$QPID"
            exit 0
        fi
        sleep 1
    done
) 2>/dev/null &
WPID=$!
{ wait "$QPID"; QRC=$?; } 2>/dev/null  # no "Killed" notice from bash
T1=$(date +%s.%N)
QPID=''
kill -KILL "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; WPID=''
wait "$CPID"

ELAPSED=$(awk -v a="$T0" -v b="$T1" 'BEGIN{printf "%.2f", b-a}')
{
    echo "host_qemu_wall_s $ELAPSED"
    [ -r "$OUT/.harness/timings" ] && sed 's/^/guest_uptime_s_/' "$OUT/.harness/timings"
} >"$OUT/timings.txt"

tail_console() { [ -s "$OUT/console.log" ] && { echo "--- last console lines ($OUT/console.log):"; tail -n 15 "$OUT/console.log"; } >&2; }

if [ -e "$TMP/timed-out" ]; then
    vm_log "ERROR: TIMEOUT: the VM ran longer than ${TIMEOUT}s and was killed (out: $OUT)"
    tail_console
    exit 124
fi
if [ -r "$OUT/exit-status" ]; then
    RC=$(cat "$OUT/exit-status")
    if [[ $RC =~ ^[0-9]+$ ]]; then
        [ "$QUIET" = 1 ] || vm_log "exit status $RC; ${ELAPSED}s boot-to-poweroff (out: $OUT)"
        exit "$RC"
    fi
fi
if [ -s "$OUT/.harness/init-error" ]; then
    vm_log "ERROR: guest setup failed: $(tr '\n' ' ' <"$OUT/.harness/init-error")(out: $OUT)"
elif [ "$QRC" != 0 ]; then
    vm_log "ERROR: qemu failed to start or crashed (status $QRC): $(head -c 2000 "$OUT/qemu-stderr.txt")"
else
    vm_log "ERROR: the VM powered off without a result (kernel or /init failed?) (out: $OUT)"
fi
tail_console
exit 125
