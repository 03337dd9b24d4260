#!/usr/bin/env python3
"""Times the independent decoders on one file, for scripts/bench (BENCHMARKS.md, activity files).

    python3 scripts/oracles/bench_readers.py garmin|fitdecode|gpxpy FILE [REPEAT] [--import-only]

Reads FILE REPEAT times (default 1) with the tool and prints the fastest wall time. With
--import-only it imports the tool and stops: the baseline that callgrind's count for a read is
reduced by.
"""
import sys
import time


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    import_only = "--import-only" in sys.argv
    if len(args) < 2 or args[0] not in ("garmin", "fitdecode", "gpxpy"):
        print(__doc__, file=sys.stderr)
        return 2
    tool, path = args[0], args[1]
    repeat = int(args[2]) if len(args) > 2 else 1
    if tool == "garmin":
        from garmin_fit_sdk import Decoder, Stream

        def read():
            messages, errors = Decoder(Stream.from_file(path)).read(convert_datetimes_to_dates=False)
            assert not errors, errors
            return len(messages.get("record_mesgs", []))
    elif tool == "fitdecode":
        import fitdecode

        def read():
            count = 0
            with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.ENABLED) as reader:
                for frame in reader:
                    if frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == "record":
                        count += 1
            return count
    else:
        import gpxpy

        def read():
            with open(path, encoding="utf-8") as f:
                gpx = gpxpy.parse(f)
            return sum(len(s.points) for t in gpx.tracks for s in t.segments)
    if import_only:
        return 0
    fastest = None
    for _ in range(repeat):
        started = time.perf_counter()
        count = read()
        elapsed = time.perf_counter() - started
        fastest = elapsed if fastest is None else min(fastest, elapsed)
    print(f"read {tool}: {count} records; fastest of {repeat}: {fastest * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
