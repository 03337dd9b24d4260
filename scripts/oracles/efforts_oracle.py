#!/usr/bin/env python3
"""scripts/oracles/efforts_oracle.py — best efforts in an activity file, by fitdecode and numpy,
for the store's records tests (issue 34). Written apart from the store's Swift code, the other way
round: the file's samples are resampled onto every tenth of a second by linear interpolation, and
for each standard distance the fastest stretch is found with numpy's searchsorted over that grid.

Usage:
  efforts_oracle.py FILE...      for each FIT file, prints one JSON line:
                                 {"file", "efforts": {"1000": seconds, ...}} for the distances
                                 the file covers (1000, 1609.344, 5000, 10000, 21097.5, 42195 m).

Distances are the record messages' `distance` field where the device wrote one; a record
without it is left out. Time is the records' timestamps, pauses included.
"""
import json
import sys

import numpy as np

DISTANCES = [1000, 1609.344, 5000, 10000, 21097.5, 42195]


def samples(path):
    import fitdecode

    times, distances = [], []
    with fitdecode.FitReader(path) as reader:
        for frame in reader:
            if not isinstance(frame, fitdecode.FitDataMessage) or frame.name != "record":
                continue
            if not frame.has_field("timestamp") or not frame.has_field("distance"):
                continue
            stamp, distance = frame.get_value("timestamp"), frame.get_value("distance")
            if stamp is None or distance is None:
                continue
            seconds = stamp.timestamp()
            if times and seconds <= times[-1]:
                continue
            times.append(seconds)
            distances.append(max(distance, distances[-1]) if distances else distance)
    return np.array(times) - (times[0] if times else 0), np.array(distances)


def efforts(times, distances, step=0.1):
    if len(times) < 2:
        return {}
    grid = np.arange(times[0], times[-1] + step / 2, step)
    covered = np.interp(grid, times, distances)
    found = {}
    for target in DISTANCES:
        if covered[-1] - covered[0] < target:
            continue
        # For each start on the grid, the first grid point whose distance reaches start + target.
        ends = np.searchsorted(covered, covered + target, side="left")
        valid = ends < len(grid)
        if not valid.any():
            continue
        spans = (ends[valid] - np.nonzero(valid)[0]) * step
        found[str(target)] = float(spans.min())
    return found


def main(paths):
    for path in paths:
        t, d = samples(path)
        print(json.dumps({"file": path, "efforts": efforts(t, d)}))


if __name__ == "__main__":
    main(sys.argv[1:])
