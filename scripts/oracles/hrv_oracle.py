#!/usr/bin/env python3
"""scripts/oracles/hrv_oracle.py — heart-rate variability by neurokit2, for the Training tests.

Usage:
  hrv_oracle.py analyse          reads JSON on stdin: {"series": [{"name", "raw", "corrected",
                                 "corrected_times", "windows": [[first, end], ...]}]} (intervals in ms,
                                 times in s, windows as index ranges into "corrected"); prints, per
                                 series, neurokit2's RMSSD and SDNN of the corrected series (given
                                 its times, so that successive differences across a gap are left
                                 out), its DFA-α1 (fractal_dfa, scales 4…16 beats, as Kubios and
                                 Rogers et al. 2021), α1 of each window, and neurokit2's own
                                 Lipponen & Tarvainen (Kubios) artifact count on the raw series.
  hrv_oracle.py fit FILE         the RR intervals (ms) in a FIT file's hrv messages, by fitdecode.
  hrv_oracle.py hxm CSV          the RR intervals (ms) of a Zephyr HxM stream from its expected
                                 per-frame values (successive beat timestamps, hb_number + 1).

Needs neurokit2 and fitdecode (PyPI): `scripts/setup --test` installs them.
"""
import csv
import json
import sys
import warnings

import numpy as np


def analyse(request):
    import neurokit2 as nk
    from neurokit2.signal.signal_fixpeaks import _find_artifacts

    out = []
    for series in request["series"]:
        rri = np.asarray(series["corrected"], dtype=float)
        times = np.asarray(series["corrected_times"], dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            time_domain = nk.hrv_time({"RRI": rri, "RRI_Time": times})
            alpha1, _ = nk.fractal_dfa(rri, scale=np.arange(4, 17))
            windows = []
            for first, end in series.get("windows", []):
                value, _ = nk.fractal_dfa(rri[first:end], scale=np.arange(4, 17))
                windows.append(float(value))
            raw = np.asarray(series["raw"], dtype=float)
            # Peaks in ms as floats: rounding them to whole samples would add a millisecond of noise
            # to series whose beat-to-beat changes are a few milliseconds.
            peaks = np.concatenate(([0.0], np.cumsum(raw)))
            # neurokit2's interval i ends at peak i, and its interval 0 is a stand-in (the mean):
            # our interval i is its i + 1.
            found, _ = _find_artifacts(peaks, sampling_rate=1000)
        first_pass = {kind: sorted(int(i) - 1 for i in found[kind]) for kind in ("ectopic", "missed", "extra", "longshort")}
        out.append({
            "name": series["name"],
            "rmssd": float(time_domain["HRV_RMSSD"].iloc[0]),
            "sdnn": float(time_domain["HRV_SDNN"].iloc[0]),
            "alpha1": float(alpha1),
            "windows": windows,
            "first_pass": first_pass,
        })
    return {"series": out}


def fit_rr(path):
    import fitdecode

    values = []
    with fitdecode.FitReader(path) as reader:
        for frame in reader:
            if isinstance(frame, fitdecode.FitDataMessage) and frame.name == "hrv":
                times = frame.get_value("time")
                for value in times if isinstance(times, tuple) else (times,):
                    if value is not None:
                        values.append(round(value * 1000, 3))
    return {"rr": values}


def hxm_rr(path):
    values = []
    previous = None
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["crc_ok"] != "1":
                continue
            number, newest, second = int(row["hb_number"]), int(row["hb_ts_ms_newest"]), int(row["hb_ts_ms_2"])
            if previous is None:
                values.append((newest - second) % 65536)
            else:
                # Each new beat's interval: the newest timestamp less the one before it.
                gained = (number - previous) % 256
                if gained == 1:
                    values.append((newest - second) % 65536)
                elif gained > 1:
                    values.append(None)  # more than one new beat: only the frames' own pairs are known
            previous = number
    return {"rr": values}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "analyse":
        result = analyse(json.load(sys.stdin))
    elif len(sys.argv) == 3 and sys.argv[1] == "fit":
        result = fit_rr(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "hxm":
        result = hxm_rr(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
