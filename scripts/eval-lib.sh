# Shared by the evaluation wrappers (scripts/eval-secure-qr.sh, scripts/eval-copy-detection.sh); sourced, not run.
# eval_prepare NAME PACKAGE...: exits 2 naming the first Debian package that is missing, and sets LUMASCAN to a built
# lumascan (building the debug one unless LUMASCAN already names one).
eval_prepare() {
    local name=$1
    shift
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || { echo "$name: apt-get install $package first" >&2; exit 2; }
    done
    if [[ -z ${LUMASCAN:-} ]]; then
        swift build --product lumascan >&2
        LUMASCAN=$(swift build --show-bin-path)/lumascan
    fi
}
