#!/usr/bin/python3
"""Reads again the meters a run of scripts/eval-meter.sh kept (`--keep DIR`, with or without --digital) with a built
lumascan, and with --against a second one, so that a change is measured on the very recordings it is compared with:

    /usr/bin/python3 scripts/replay-meter.py --lumascan NEW [--against OLD] [--verbose] DIR...

Each DIR holds the recordings, their configuration (counter-meter.json or digital-meter.json) and truth.txt (written
by the evaluation with --keep). Verdicts as in eval-meter.py: a meter is exact when its first COMPLETED_RESULT equals
the truth, misread when it differs, no result without one; any result on a scene without a meter is false. Prints
each binary's tallies per folder and over all of them, and with --against every recording whose verdict differs.
Needs only python3-opencv (lsrec.py) and the binaries; two recordings are replayed at a time.
"""
import argparse
import glob
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsrec  # noqa: E402


def replay(lumascan, folder, workers=2):
    """Every kept recording of `folder` read by `lumascan`: {recording: (truth, style, completed, verdict)}."""
    configs = glob.glob(os.path.join(folder, "*-meter.json"))
    if len(configs) != 1:
        raise SystemExit(f"replay-meter: {folder} holds {len(configs)} *-meter.json configurations, not one")
    entries = lsrec.read_truths(folder)

    def one(entry):
        recording, truth, style = entry
        completed, _ = lsrec.scan_readings(lumascan, configs[0], recording)
        return recording, (truth, style, completed, lsrec.verdict(truth, completed))

    with ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(one, entries))


def tally(results):
    """Counts of each verdict."""
    counts = {"exact": 0, "misread": 0, "no result": 0, "none": 0, "false": 0}
    for _, _, _, v in results.values():
        counts[v] += 1
    return counts


def describe(counts):
    meters = counts["exact"] + counts["misread"] + counts["no result"]
    blanks = counts["none"] + counts["false"]
    share = 100 * counts["exact"] / meters if meters else 0
    return (f"{meters} meters: exact {counts['exact']} ({share:.1f} %), misread {counts['misread']}, "
            f"no result {counts['no result']}; {blanks} without a meter: false results {counts['false']}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lumascan", required=True, help="the lumascan to measure")
    parser.add_argument("--against", help="a second lumascan (the one before the change) to compare with")
    parser.add_argument("--verbose", action="store_true", help="every recording's verdict, not only the changes")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    binaries = [("now", args.lumascan)] + ([("before", args.against)] if args.against else [])
    totals = {name: tally({}) for name, _ in binaries}
    for folder in args.folders:
        results = {name: replay(binary, folder) for name, binary in binaries}
        for name, _ in binaries:
            counts = tally(results[name])
            for key, value in counts.items():
                totals[name][key] += value
            print(f"{folder} ({name}): {describe(counts)}")
        for recording, (truth, style, completed, v) in sorted(results["now"].items()):
            before = results["before"][recording] if args.against else None
            if args.verbose or (before and before[3] != v):
                was = f"{before[3]} {before[2] or '-'} -> " if before else ""
                print(f"  {os.path.basename(recording)} ({style}) truth {truth or '-'}: {was}{v} {completed or '-'}")
    if len(args.folders) > 1:
        for name, _ in binaries:
            print(f"all ({name}): {describe(totals[name])}")


if __name__ == "__main__":
    sys.exit(main())
