#!/usr/bin/env bash
# Installs the Debian packages LumaScan builds and tests with, only those that are missing.
# Usage: scripts/deps.sh [--test]   (--test adds what the test suite needs)
set -euo pipefail

packages=(pkg-config libv4l-dev libzbar-dev libzxing-dev libopencv-dev libturbojpeg0-dev libpng-dev libwebp-dev libtiff-dev
  libgif-dev libqrencode-dev v4l-utils libasound2-dev libsndfile1-dev libssl-dev)
if [[ "${1:-}" == "--test" ]]; then
  # qrencode and libzint (zint's encoders, every symbology) make the codes the tests read; zbarimg and ZXingReader
  # are the peers the barcode corpus is compared with; chromium runs the preview page in scripts/browser-test.sh; the
  # VM harness installs its own (qemu, busybox, kernel).
  packages+=(qrencode libzint-dev zint zbar-tools zxing-cpp-tools fonts-dejavu-core chromium)
  # scripts/check-deploy.sh: systemd-analyze verify (systemd), the udev rule's parse (udev), the .deb's Depends
  # (dpkg-shlibdeps, dpkg-dev).
  packages+=(systemd udev dpkg-dev)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: need root to apt-get install ${missing[*]} (run as root or with sudo)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [[ -x "$candidate/swift" ]] && { echo "deps: add $candidate to PATH" >&2; break; }
  done
  echo "deps: the Swift toolchain (6.1 or newer) is required and was not found on PATH" >&2
  exit 1
fi
