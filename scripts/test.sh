#!/usr/bin/env bash
# The README's test command: installs what is missing, then builds and runs the whole test suite:
#   1. unit tests (every module), built with warnings as errors, the preview page in a real headless Chromium against
#      `lumascan serve` (scripts/browser-test.sh), and the deployment check (scripts/check-deploy.sh: the systemd
#      unit, the udev rule and the .deb);
#   2. the frame ring, the engine and the audio feedback under the thread sanitizer;
#   3. the C shims' tests (and the test kit's: the barcode corpus' generator and peers) under the address sanitizer;
#   4. the V4L2 integration tests against the kernel's vivid driver in a VM (Tests/IntegrationTests);
#   5. the libFuzzer targets (scripts/fuzz.sh: image decoders, MJPEG-to-luma, barcode scanner, meter reader,
#      configuration, recordings; about 6 minutes), run beside step 4;
#   6. the formatting lint.
# Set LUMASCAN_SKIP_VM=1 to skip step 4 (it then says so); LUMASCAN_SKIP_SANITIZERS=1 skips steps 2, 3 and 5.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/deps.sh --test

step() { printf '\n=== %s ===\n' "$*"; }
started=$SECONDS

# The debug build compiles the C and C++ shims with -O2 (flags on the command line, not in Package.swift, where unsafe
# flags would keep other packages from depending on LumaScan): the tests that run the meter reader and the barcode
# shims on many images took 251 s instead of 373 s (2026-11-27). Every debug build below uses the same flags, so that
# none of them compiles the package again.
debug_flags=(-Xswiftc -warnings-as-errors -Xcc -O2 -Xcxx -O2)

step "unit tests"
swift build --build-tests "${debug_flags[@]}"
# The VM-backed integration tests run in their own step below.
swift test --skip-build --parallel --skip IntegrationTests --skip LumaScanServerTests
# The server's tests in a process of their own: its handlers run on Swift's cooperative pool (two threads on two
# cores), which the long synchronous tests above (the barcode corpus, the meter corpora) hold for minutes at a time.
swift test --skip-build --filter LumaScanServerTests

step "the preview page in headless Chromium against lumascan serve (scripts/browser-test.sh)"
LUMASCAN="$(swift build --show-bin-path)/lumascan" scripts/browser-test.sh

step "deployment: systemd unit, udev rule, Debian package (scripts/check-deploy.sh)"
LUMASCAN="$(swift build --show-bin-path)/lumascan" scripts/check-deploy.sh

if [[ "${LUMASCAN_SKIP_SANITIZERS:-0}" != 1 ]]; then
  # The sanitizer builds leave out the CLI, the kiosk service, the packages only they use and the test targets they do
  # not run (Package.swift, LUMASCAN_SANITIZER_SUBSET): on a fresh machine those were most of what each build
  # compiled (the TSan build from scratch: 362 s with everything, 226 s without the service, 2026-11-27).
  step "thread sanitizer: frame ring and engine"
  LUMASCAN_SANITIZER_SUBSET=thread swift test --scratch-path .build-tsan --sanitize=thread \
    --filter 'FrameRing|ScanEngine|ScanLifecycle|AudioFeedback|NativeThread'
  step "address sanitizer: C shims (capture, vision)"
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0" LUMASCAN_SANITIZER_SUBSET=address \
    swift test --scratch-path .build-asan --sanitize=address \
      --filter 'LumaScanCaptureTests|LVBarcodeScanner|LVImage|BarcodeRecognizer|MeterRecognizer|BarcodeTruth|BarcodeRealWorldCorpusTests/(truths|deterministic)'
fi

# The fuzz targets run beside the VM step: the VM has one virtual CPU (qemu's TCG on one host core) and the fuzz
# targets run one at a time, so on two cores each mostly has a core of its own (the barcode target, whose still path
# uses a second thread, ran 22 % slower). Here the two took 379 s together against 543 s one after the other
# (2026-11-27). Their output is shown after the VM step's; a fuzz failure fails the script there.
fuzz_pid=
fuzz_log=.build-fuzz/test-step.log
if [[ "${LUMASCAN_SKIP_SANITIZERS:-0}" != 1 ]]; then
  mkdir -p .build-fuzz
  scripts/fuzz.sh >"$fuzz_log" 2>&1 &
  fuzz_pid=$!
  # A failing VM step ends the script: the fuzz run ends with it (its targets are fuzz.sh's children).
  trap 'if [[ -n $fuzz_pid ]]; then pkill -TERM -P "$fuzz_pid" 2>/dev/null; kill "$fuzz_pid" 2>/dev/null; fi; true' EXIT
fi

step "V4L2 integration tests: vivid in a VM (Tests/IntegrationTests)"
if [[ "${LUMASCAN_SKIP_VM:-0}" == 1 ]]; then
  echo "skipped: LUMASCAN_SKIP_VM=1 asks not to boot the VM, so the V4L2 tests against vivid did not run"
else
  # Installs qemu, busybox-static, cpio, v4l-utils and the kernel when missing; about 1 s when cached (.vm-cache/).
  Tests/IntegrationTests/vm/prepare.sh --quiet
  swift build --build-tests "${debug_flags[@]}"
  swift test --skip-build --filter IntegrationTests
fi

step "fuzz targets under address and undefined-behaviour sanitizers (scripts/fuzz.sh, run beside the VM step)"
if [[ -z $fuzz_pid ]]; then
  echo "skipped: LUMASCAN_SKIP_SANITIZERS=1 asks not to run the sanitizer steps, so the fuzz targets did not run"
else
  fuzz_status=0
  wait "$fuzz_pid" || fuzz_status=$?
  fuzz_pid=
  cat "$fuzz_log"
  if ((fuzz_status != 0)); then
    echo "test.sh: the fuzz step failed (status $fuzz_status)" >&2
    exit 1
  fi
fi

step "format lint"
swift format lint --strict --recursive Sources Tests Package.swift

echo
echo "test.sh: all steps passed in $((SECONDS - started)) s"
