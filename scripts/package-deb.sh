#!/usr/bin/env bash
# Builds the Debian package of the lumascan kiosk service and prints its path.
#
# Usage: scripts/package-deb.sh [OUTPUT_DIR]        (default .build/deb)
#   LUMASCAN=path/to/lumascan   package this binary instead of building one (CI packages its debug build)
#   VERSION=1.2.3               the package version (default: from `git describe`, else 0.0.0)
#   DEB_COMPRESSION=none        dpkg-deb -Z: xz (the default), gzip, zstd or none (scripts/check-deploy.sh: xz takes
#                               about 18 s on a 33 MB debug binary)
#
# Without LUMASCAN it builds `swift build -c release --product lumascan --static-swift-stdlib`: the Swift runtime
# and Foundation are linked in, so the package depends only on Debian's libraries. A binary given with LUMASCAN that
# links the toolchain's shared runtime (a debug build) only runs where that toolchain is installed (/opt/swift); the
# script says so.
#
# Contents (owned by root, --root-owner-group):
#   /usr/bin/lumascan                                   0755
#   /lib/systemd/system/lumascan.service                0644  deploy/lumascan.service
#   /lib/systemd/system/lumascan-restart@.service       0644  deploy/lumascan-restart@.service
#   /lib/udev/rules.d/99-lumascan.rules                 0644  deploy/99-lumascan.rules
#   /etc/lumascan/config.json                           0644  deploy/config.json, a conffile (kept on upgrade)
#   /etc/lumascan/sounds/                               0755  empty: audioFeedback's folder for the WAV files
#   /usr/share/doc/lumascan/README.md                   0644
# Depends: from dpkg-shlibdeps (dpkg-dev) on the binary, through a debian/control scaffold in a scratch folder; without
# dpkg-shlibdeps, the packages that own the libraries `ldd` lists (dpkg -S), without versions.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"

out_dir=${1:-.build/deb}
say() { echo "package-deb: $*" >&2; }
die() {
  say "$*"
  exit 1
}

binary=${LUMASCAN:-}
if [[ -z "$binary" ]]; then
  say "building the release binary (swift build -c release --product lumascan --static-swift-stdlib)"
  swift build -c release --product lumascan --static-swift-stdlib >&2
  binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/lumascan"
fi
[[ -x "$binary" ]] || die "no executable at $binary"

# Debian versions start with a digit: the tag v1.2.3 and 4 commits after it, v1.2.3-4-gabcdef, becomes
# 1.2.3+4.gabcdef; a tree without a version tag gives 0.0.0+git.<commit>, and no git at all 0.0.0.
if [[ -z "${VERSION:-}" ]]; then
  if described=$(git describe --tags --dirty 2>/dev/null) && [[ "${described#v}" =~ ^[0-9] ]]; then
    VERSION=$(echo "${described#v}" | sed -E 's/-([0-9]+)-g/+\1.g/; s/-dirty$/.dirty/')
  elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
    VERSION="0.0.0+git.$commit"
    git diff --quiet HEAD 2>/dev/null || VERSION="$VERSION.dirty"
  else
    VERSION=0.0.0
  fi
fi
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "VERSION '$VERSION' is not a Debian version"
arch=$(dpkg --print-architecture)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The layout dpkg-shlibdeps expects: a source tree whose debian/control names the package, and the package's root in
# debian/<package>/ with its DEBIAN/ (which is how it resolves the binary's $ORIGIN run path).
root="$scratch/src/debian/lumascan"
mkdir -p "$root/DEBIAN"

install -D -m 0755 "$binary" "$root/usr/bin/lumascan"
# Debian ships binaries stripped (the release binary drops from about 89 MB); STRIP=0 keeps the symbols.
if [[ "${STRIP:-1}" != 0 ]]; then strip --strip-unneeded "$root/usr/bin/lumascan"; fi
install -D -m 0644 deploy/lumascan.service "$root/lib/systemd/system/lumascan.service"
install -D -m 0644 deploy/lumascan-restart@.service "$root/lib/systemd/system/lumascan-restart@.service"
install -D -m 0644 deploy/99-lumascan.rules "$root/lib/udev/rules.d/99-lumascan.rules"
install -D -m 0644 deploy/config.json "$root/etc/lumascan/config.json"
# Where the configuration's audioFeedback looks for start.wav, result.wav…; empty: no sounds until some are added.
install -d -m 0755 "$root/etc/lumascan/sounds"
install -D -m 0644 README.md "$root/usr/share/doc/lumascan/README.md"

# Depends.
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
  printf 'Source: lumascan\n\nPackage: lumascan\nArchitecture: any\n' >"$scratch/src/debian/control"
  # --ignore-missing-info: libraries that no Debian package ships (the toolchain's libswiftCore.so of a debug build)
  # are left out of Depends rather than failing; they are reported below.
  depends=$(cd "$scratch/src" && dpkg-shlibdeps -O --ignore-missing-info "$root/usr/bin/lumascan" 2>"$scratch/shlibdeps.log" |
    sed -n 's/^shlibs:Depends=//p') || {
    cat "$scratch/shlibdeps.log" >&2
    die "dpkg-shlibdeps failed"
  }
  grep -v '^$' "$scratch/shlibdeps.log" | sed 's/^/package-deb: dpkg-shlibdeps: /' >&2 || true
else
  say "dpkg-shlibdeps not found (install dpkg-dev): Depends lists the packages owning ldd's libraries, unversioned"
  depends=$(ldd "$root/usr/bin/lumascan" | awk '$3 ~ /^\// {print $3}' | while read -r library; do
    dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
  done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
fi
[[ -n "$depends" ]] || die "no Depends found for $binary"
outside=$(ldd "$root/usr/bin/lumascan" | awk '$3 ~ /^\// {print $3}' | grep -v -E '^/(usr/)?lib/' || true)
if [[ -n "$outside" ]]; then
  say "warning: the binary links libraries outside /usr/lib, which no dependency provides:"
  echo "$outside" | sed 's/^/package-deb:   /' >&2
  say "warning: build it with --static-swift-stdlib (the default without LUMASCAN) for a self-contained package"
fi

installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: lumascan
Version: $VERSION
Architecture: $arch
Maintainer: LumaScan maintainers <lumascan@localhost>
Installed-Size: $installed_size
Depends: $depends
Recommends: udev, systemd
Section: video
Priority: optional
Homepage: https://localhost/lumascan
Description: real-time camera scanning service (barcodes, secure QR, meters)
 LumaScan captures frames from V4L2 cameras and recognises barcodes, secure QR
 codes and meters. This package runs "lumascan serve" as the systemd service
 lumascan.service, started when a USB camera is plugged in (udev rule
 99-lumascan.rules), configured by /etc/lumascan/config.json.
EOF
echo /etc/lumascan/config.json >"$root/DEBIAN/conffiles"
# The unit and the rule take effect without a reboot; the service itself starts when a camera appears (or at once
# when one is plugged in already: the trigger replays its add event).
cat >"$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
    if command -v udevadm >/dev/null 2>&1 && [ -d /run/udev ]; then
        udevadm control --reload-rules || true
        udevadm trigger --subsystem-match=video4linux --action=add || true
    fi
fi
EOF
cat >"$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then systemctl stop lumascan.service || true; fi
EOF
cat >"$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
if command -v udevadm >/dev/null 2>&1 && [ -d /run/udev ]; then udevadm control --reload-rules || true; fi
EOF
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"

mkdir -p "$out_dir"
deb="$out_dir/lumascan_${VERSION}_${arch}.deb"
dpkg-deb -Z"${DEB_COMPRESSION:-xz}" --build --root-owner-group "$root" "$deb" >&2
echo "$deb"
