#!/usr/bin/env bash
# CI check of deploy/: the systemd units, the udev rule, and the Debian package scripts/package-deb.sh builds.
#
# Usage: scripts/check-deploy.sh        LUMASCAN=path/to/lumascan to check with that binary
#
# Without LUMASCAN it packages the debug build (`swift build --product lumascan`, incremental after the test build),
# not a release build: the check is about the package's shape, and a release build would take minutes.
# Runs without a VM or a running systemd/udevd (a container is fine), as root for the udev step:
#   1. systemd-analyze verify on the units. verify refuses a unit whose ExecStart binary does not exist, and
#      /usr/bin/lumascan is not installed here: it checks a copy of deploy/lumascan.service whose ExecStart names the
#      binary being packaged instead. Any warning fails the check (verify itself exits 0 on unknown keys).
#   2. The udev rule: `udevadm verify` where udev has it (systemd 254 and later); Debian 12's udev (252) does not, so
#      the rule is parsed by `udevadm test` in a private mount namespace whose /run/udev/rules.d holds only it, and any
#      message about the file fails the check. Not checked: that it matches a real USB camera (no video4linux device
#      exists without one; the VM's vivid device is not on USB).
#   3. The package, built with LUMASCAN=<that binary> (uncompressed, to save the 18 s xz takes): dpkg-deb -I fields, the conffile, the paths and modes
#      (dpkg-deb -c), and, extracted with dpkg-deb -x into a scratch root, the binary running `--help` and validating
#      the packaged configuration with the dynamic loader's default paths (LD_LIBRARY_PATH unset), as installed.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
started=$SECONDS
fail() {
  echo "check-deploy: FAILED: $*" >&2
  exit 1
}
step() { printf 'check-deploy: %s\n' "$*"; }

binary=${LUMASCAN:-}
if [[ -z "$binary" ]]; then
  swift build --product lumascan >/dev/null
  binary="$(swift build --show-bin-path)/lumascan"
fi
[[ -x "$binary" ]] || fail "no executable at $binary"
binary=$(readlink -f "$binary")

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# 1. systemd units.
step "systemd-analyze verify deploy/lumascan.service deploy/lumascan-restart@.service (ExecStart: $binary)"
units="$scratch/units"
mkdir -p "$units"
sed "s#/usr/bin/lumascan #$binary #" deploy/lumascan.service >"$units/lumascan.service"
grep -q "^ExecStart=$binary serve " "$units/lumascan.service" || fail "ExecStart of deploy/lumascan.service not found"
cp deploy/lumascan-restart@.service "$units/"
if ! output=$(cd "$units" && systemd-analyze verify lumascan.service lumascan-restart@.service 2>&1); then
  fail "systemd-analyze verify: $output"
fi
[[ -z "$output" ]] || fail "systemd-analyze verify warns: $output"

# 2. udev rule.
if udevadm verify --help >/dev/null 2>&1; then
  step "udevadm verify deploy/99-lumascan.rules"
  udevadm verify deploy/99-lumascan.rules || fail "udevadm verify deploy/99-lumascan.rules"
elif [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null; then
  step "udevadm test (udev $(udevadm --version) has no verify): parsing deploy/99-lumascan.rules in a mount namespace"
  # Any device will do: the rules files are all parsed before the device is looked at.
  output=$(RULE="$PWD/deploy/99-lumascan.rules" unshare -m sh -c '
    mount -t tmpfs tmpfs /run/udev 2>/dev/null || { mkdir -p /run/udev && mount -t tmpfs tmpfs /run/udev; }
    mkdir -p /run/udev/rules.d && cp "$RULE" /run/udev/rules.d/
    udevadm test --action=add /sys/class/mem/null 2>&1') || fail "udevadm test failed: $output"
  grep -q "Reading rules file: /run/udev/rules.d/99-lumascan.rules" <<<"$output" || fail "udevadm did not read the rule"
  problems=$(grep "99-lumascan.rules" <<<"$output" | grep -v "Reading rules file" || true)
  [[ -z "$problems" ]] || fail "udev: $problems"
else
  step "skipped the udev rule's parse: neither udevadm verify nor root for a mount namespace"
fi

# 3. The package.
step "scripts/package-deb.sh with LUMASCAN=$binary"
deb=$(LUMASCAN="$binary" VERSION=0.0.0+check DEB_COMPRESSION=none scripts/package-deb.sh "$scratch/out" 2>"$scratch/package.log") || {
  cat "$scratch/package.log" >&2
  fail "scripts/package-deb.sh"
}
[[ -f "$deb" ]] || fail "scripts/package-deb.sh printed '$deb', which is not a file"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == lumascan ]] || fail "Package: $(field Package)"
[[ $(field Version) == 0.0.0+check ]] || fail "Version: $(field Version)"
[[ $(field Architecture) == "$(dpkg --print-architecture)" ]] || fail "Architecture: $(field Architecture)"
[[ $(field Depends) == *libc6* ]] || fail "Depends lacks libc6: $(field Depends)"
for library in libasound2 libsndfile1 libv4l-0 libzbar0; do
  [[ $(field Depends) == *"$library"* ]] || fail "Depends lacks $library: $(field Depends)"
done
[[ -n $(field Description) && -n $(field Maintainer) ]] || fail "Description or Maintainer missing"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/lumascan/config.json || fail "config.json is not a conffile"

listing=$(dpkg-deb -c "$deb")
expect_entry() { # mode path
  grep -qE "^$1 root/root .* \./${2#/}\$" <<<"$listing" || fail "$2: not $1 root/root in the package:
$listing"
}
expect_entry -rwxr-xr-x /usr/bin/lumascan
expect_entry -rw-r--r-- /lib/systemd/system/lumascan.service
expect_entry -rw-r--r-- /lib/systemd/system/lumascan-restart@.service
expect_entry -rw-r--r-- /lib/udev/rules.d/99-lumascan.rules
expect_entry -rw-r--r-- /etc/lumascan/config.json
expect_entry drwxr-xr-x /etc/lumascan/sounds/
expect_entry -rw-r--r-- /usr/share/doc/lumascan/README.md

root="$scratch/root"
dpkg-deb -x "$deb" "$root"
cmp -s "$root/lib/systemd/system/lumascan.service" deploy/lumascan.service || fail "packaged unit differs"
cmp -s "$root/lib/udev/rules.d/99-lumascan.rules" deploy/99-lumascan.rules || fail "packaged rule differs"
if missing=$(env -u LD_LIBRARY_PATH ldd "$root/usr/bin/lumascan" | grep "not found"); then
  fail "libraries not found: $missing"
fi
env -u LD_LIBRARY_PATH "$root/usr/bin/lumascan" --help >"$scratch/help.txt" || fail "lumascan --help from the package"
grep -q "scan" "$scratch/help.txt" || fail "lumascan --help does not list its commands"
env -u LD_LIBRARY_PATH "$root/usr/bin/lumascan" config validate "$root/etc/lumascan/config.json" >/dev/null ||
  fail "the packaged /etc/lumascan/config.json does not validate"

step "passed in $((SECONDS - started)) s ($deb: $(du -h "$deb" | cut -f1), Depends: $(field Depends))"
