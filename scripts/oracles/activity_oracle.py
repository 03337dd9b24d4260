#!/usr/bin/env python3
"""Independent decoders ("oracles") for activity files, for the Swift tests to compare against.

    python3 scripts/oracles/activity_oracle.py FILE...

prints one JSON object, {"files": [ {...}, ... ]}, one entry per FILE in the order given, and
exits 0 even when a file is invalid: validity is reported in the JSON. Exit 2 is for usage errors
(no file, an extension other than .fit/.gpx/.tcx) and for a missing Python module, with the PyPI
package to install on stderr. Every decoder failure lands in the JSON as "ok": false and an
"error" string, never as a traceback.

Each entry is {"path", "format", <oracle name>: {...}, ...}. The oracles, by extension
(case-insensitive):

.fit
  "garmin"     Garmin's own FIT SDK for Python (PyPI garmin-fit-sdk). Decoder.read() with scale and
               offset applied, enum values converted to the SDK's strings ("running", "lap",
               "session_end", ...), components expanded (so speed/altitude also appear as
               enhanced_speed/enhanced_altitude), sub-fields expanded, the CRC checked, datetimes
               NOT converted (raw FIT seconds, turned here into unix seconds by adding
               631065600), and merge_heart_rates OFF: merging overwrites and fills the records'
               heart_rate from HR-plugin `hr` messages, and we want what the record messages say.
               Positions come as semicircles and are reported here in degrees (x 180 / 2^31).
               is_fit() and check_integrity() each run on a fresh stream (check_integrity leaves
               the stream at its end). The SDK cannot read compressed-timestamp headers: it stops
               with an error.
  "fitdecode"  polyvertex's fitdecode, FitReader(check_crc=CrcCheck.ENABLED) (= RAISE) with the
               default data processor; its warnings are captured into "warnings". Also reports the
               file's structure: header, message counts, big-/little-endian definition counts,
               developer-data definitions and compressed-timestamp messages.
  FIT timestamps are unix seconds (int) in both; every date_time value is taken as absolute
  (FIT epoch + value) even below 0x10000000. HRV is a flat list of RR intervals in seconds with
  the 0xFFFF "invalid" slots dropped; values the device really wrote (e.g. 5.0 s fillers) are kept.

.gpx
  "xmllint"    $HANDOFF_FIXTURES/xsd/validate.sh FILE (xmllint against GPX 1.1 + Garmin
               TrackPointExtension v1/v2 + GpxExtensions v3 strictly, or GPX 1.0). HANDOFF_FIXTURES
               defaults to <repo>/../shared/fixtures. Without xmllint (apt libxml2-utils) or
               validate.sh: "valid": null and an "error".
  "gpxpy"      gpxpy.parse(); points as {time (unix float; a time without zone is taken as UTC),
               lat, lon, ele, hr, cad, speed}, hr/cad/speed from a Garmin TrackPointExtension
               (namespace .../TrackPointExtension/v1 or /v2, at any depth inside <extensions>),
               plus gpxpy's length_2d, get_duration and get_moving_data.

.tcx
  "xmllint"    as for GPX (validate.sh picks TCX v2 + ActivityExtension v2 by itself).
  "tcx"        the standard library's ElementTree: sport, laps with their totals and points.
               cadence is ActivityExtension TPX RunCadence, else the Trackpoint's Cadence; speed is
               TPX Speed.

Dependencies: the standard library plus the three PyPI packages above (python3 -m pip install
garmin-fit-sdk fitdecode gpxpy) and, for "xmllint", Debian's libxml2-utils.
Tested with Python 3.11.7, garmin-fit-sdk 21.218.0, fitdecode 0.11.0, gpxpy 1.6.2 and
xmllint from libxml2-utils 2.9.14+dfsg-1.3~deb12u6 (Debian 12).
"""

import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

FIT_EPOCH_S = 631065600  # 1989-12-31T00:00:00Z in unix seconds
SEMICIRCLE_DEG = 180.0 / 2**31

# module to import -> PyPI package to install, per format
NEEDED = {
    "fit": [("garmin_fit_sdk", "garmin-fit-sdk"), ("fitdecode", "fitdecode")],
    "gpx": [("gpxpy", "gpxpy")],
    "tcx": [],
}

TPX_NAMESPACES = (
    "http://www.garmin.com/xmlschemas/TrackPointExtension/v1",
    "http://www.garmin.com/xmlschemas/TrackPointExtension/v2",
)
TCX_NS = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
AX_NS = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---------------------------------------------------------------------------------------------
# helpers

def error_text(exc):
    return f"{type(exc).__name__}: {exc}"


def jsonable(value):
    """Make a decoded value safe for strict JSON (no NaN/inf, no bytes, string keys)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime.datetime):
        return unix_from_datetime(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


def unix_from_datetime(dt):
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def unix_from_fit(value):
    """FIT date_time (seconds since 1989-12-31 UTC) -> unix seconds (int)."""
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return int(unix_from_datetime(value))
    if isinstance(value, (int, float)):
        return int(value) + FIT_EPOCH_S
    return None


def degrees(semicircles):
    if isinstance(semicircles, (int, float)):
        return semicircles * SEMICIRCLE_DEG
    return None


def first(*values):
    """The first value that is not None."""
    for v in values:
        if v is not None:
            return v
    return None


def flat_rr(times):
    """A hrv.time value (a list, or one number) -> RR intervals in s, invalid slots dropped."""
    if times is None:
        return []
    if not isinstance(times, (list, tuple)):
        times = [times]
    return [float(t) for t in times
            if isinstance(t, (int, float)) and math.isfinite(t)]


def number(text):
    """Text of an XML element -> int when it is one, else float, else None."""
    if text is None:
        return None
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        v = float(text)
        return v if math.isfinite(v) else None
    except ValueError:
        return None


def parse_iso(text):
    """xsd:dateTime -> unix seconds (float); a time without zone is taken as UTC."""
    if text is None:
        return None
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return unix_from_datetime(datetime.datetime.fromisoformat(text))
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# FIT: Garmin's SDK

def garmin_oracle(path):
    from garmin_fit_sdk import Decoder, Stream

    out = {"ok": False, "is_fit": None, "integrity": None, "errors": []}
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        out["errors"].append(error_text(exc))
        return out

    try:
        out["is_fit"] = bool(Decoder(Stream.from_byte_array(bytearray(data))).is_fit())
        out["integrity"] = bool(Decoder(Stream.from_byte_array(bytearray(data))).check_integrity())
        messages, errors = Decoder(Stream.from_byte_array(bytearray(data))).read(
            apply_scale_and_offset=True,
            convert_datetimes_to_dates=False,
            convert_types_to_strings=True,
            enable_crc_check=True,
            expand_sub_fields=True,
            expand_components=True,
            merge_heart_rates=False,
        )
    except Exception as exc:  # the SDK catches its own, but be sure
        out["errors"].append(error_text(exc))
        return out
    out["errors"] = [str(e) for e in errors]
    out["ok"] = bool(out["is_fit"] and out["integrity"] and not errors)

    def mesgs(key):
        return messages.get(key) or []

    out["records"] = [{
        "timestamp": unix_from_fit(m.get("timestamp")),
        "lat_deg": degrees(m.get("position_lat")),
        "lon_deg": degrees(m.get("position_long")),
        "altitude_m": first(m.get("enhanced_altitude"), m.get("altitude")),
        "heart_rate": m.get("heart_rate"),
        "cadence": m.get("cadence"),
        "fractional_cadence": m.get("fractional_cadence"),
        "speed_mps": first(m.get("enhanced_speed"), m.get("speed")),
        "distance_m": m.get("distance"),
    } for m in mesgs("record_mesgs")]

    def totals(m):
        return {
            "start_time": unix_from_fit(m.get("start_time")),
            "timestamp": unix_from_fit(m.get("timestamp")),
            "total_elapsed_time": m.get("total_elapsed_time"),
            "total_timer_time": m.get("total_timer_time"),
            "total_distance": m.get("total_distance"),
            "total_moving_time": m.get("total_moving_time"),
            "avg_heart_rate": m.get("avg_heart_rate"),
            "max_heart_rate": m.get("max_heart_rate"),
            "avg_cadence": m.get("avg_cadence"),
            "avg_speed": first(m.get("enhanced_avg_speed"), m.get("avg_speed")),
            "max_speed": first(m.get("enhanced_max_speed"), m.get("max_speed")),
        }

    out["laps"] = [dict(totals(m), lap_trigger=m.get("lap_trigger"),
                        sport=m.get("sport"), sub_sport=m.get("sub_sport"))
                   for m in mesgs("lap_mesgs")]
    out["sessions"] = [dict(totals(m),
                            sport=m.get("sport"),
                            sub_sport=m.get("sub_sport"),
                            num_laps=m.get("num_laps"),
                            trigger=m.get("trigger"))
                       for m in mesgs("session_mesgs")]
    out["events"] = [{
        "timestamp": unix_from_fit(m.get("timestamp")),
        "event": m.get("event"),
        "event_type": m.get("event_type"),
    } for m in mesgs("event_mesgs")]
    out["hrv"] = [t for m in mesgs("hrv_mesgs") for t in flat_rr(m.get("time"))]

    file_ids = mesgs("file_id_mesgs")
    fid = file_ids[0] if file_ids else {}
    out["file_id"] = {
        "type": fid.get("type"),
        "manufacturer": fid.get("manufacturer"),
        "product": fid.get("product"),
        "garmin_product": fid.get("garmin_product"),
        "serial_number": fid.get("serial_number"),
        "time_created": unix_from_fit(fid.get("time_created")),
    } if file_ids else None
    out["device_infos"] = len(mesgs("device_info_mesgs"))
    activities = mesgs("activity_mesgs")
    act = activities[0] if activities else {}
    out["activity"] = {
        "timestamp": unix_from_fit(act.get("timestamp")),
        "num_sessions": act.get("num_sessions"),
        "total_timer_time": act.get("total_timer_time"),
    } if activities else None
    out["hr_mesgs"] = len(mesgs("hr_mesgs"))
    out["developer_field_values"] = sum(
        1 for ms in messages.values() for m in ms if "developer_fields" in m)
    # unknown global message numbers come back under their number, e.g. "288"
    out["message_counts"] = {str(k): len(v) for k, v in messages.items()}
    return out


# ---------------------------------------------------------------------------------------------
# FIT: fitdecode

def fitdecode_oracle(path):
    import fitdecode

    out = {"ok": False, "error": None, "warnings": []}
    records, sessions, hrv = [], [], []
    laps = 0
    structure = {
        "headers": [],
        "crc": [],
        "definitions": 0,
        "big_endian_definitions": 0,
        "little_endian_definitions": 0,
        "developer_data_definitions": 0,
        "developer_field_definitions": 0,
        "compressed_timestamp_messages": 0,
        "message_counts": {},
    }

    def value(frame, name):
        return frame.get_value(name, fallback=None)

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.ENABLED) as reader:
                    for frame in reader:
                        kind = frame.frame_type
                        if kind == fitdecode.FIT_FRAME_HEADER:
                            structure["headers"].append({
                                "header_size": frame.header_size,
                                "protocol_version": list(frame.proto_ver),
                                "profile_version": list(frame.profile_ver),
                                "data_size": frame.body_size,
                                "header_crc_matched": frame.crc_matched,
                            })
                        elif kind == fitdecode.FIT_FRAME_CRC:
                            structure["crc"].append({"crc": frame.crc, "matched": frame.matched})
                        elif kind == fitdecode.FIT_FRAME_DEFINITION:
                            structure["definitions"] += 1
                            if frame.endian == ">":
                                structure["big_endian_definitions"] += 1
                            else:
                                structure["little_endian_definitions"] += 1
                            if frame.is_developer_data:
                                structure["developer_data_definitions"] += 1
                            structure["developer_field_definitions"] += len(frame.dev_field_defs or ())
                        elif kind == fitdecode.FIT_FRAME_DATA:
                            counts = structure["message_counts"]
                            counts[frame.name] = counts.get(frame.name, 0) + 1
                            if frame.time_offset is not None:
                                structure["compressed_timestamp_messages"] += 1
                            if frame.name == "record":
                                records.append({
                                    "timestamp": unix_from_fit(value(frame, "timestamp")),
                                    "lat_deg": degrees(value(frame, "position_lat")),
                                    "lon_deg": degrees(value(frame, "position_long")),
                                    "altitude_m": first(value(frame, "enhanced_altitude"),
                                                        value(frame, "altitude")),
                                    "heart_rate": value(frame, "heart_rate"),
                                    "cadence": value(frame, "cadence"),
                                    "speed": first(value(frame, "enhanced_speed"),
                                                   value(frame, "speed")),
                                    "distance_m": value(frame, "distance"),
                                })
                            elif frame.name == "lap":
                                laps += 1
                            elif frame.name == "session":
                                sessions.append({
                                    "start_time": unix_from_fit(value(frame, "start_time")),
                                    "total_elapsed_time": value(frame, "total_elapsed_time"),
                                    "total_timer_time": value(frame, "total_timer_time"),
                                    "total_distance": value(frame, "total_distance"),
                                    "avg_heart_rate": value(frame, "avg_heart_rate"),
                                    "max_heart_rate": value(frame, "max_heart_rate"),
                                    "sport": value(frame, "sport"),
                                    "num_laps": value(frame, "num_laps"),
                                })
                            elif frame.name == "hrv":
                                hrv.extend(flat_rr(value(frame, "time")))
                if structure["headers"]:
                    out["ok"] = True
                else:
                    out["error"] = "no FIT header: the file is empty"
            except Exception as exc:
                out["error"] = error_text(exc)
            out["warnings"] = [str(w.message) for w in caught]
    except Exception as exc:
        out["error"] = error_text(exc)
    out.update(records=records, laps=laps, sessions=sessions, hrv=hrv, structure=structure)
    return out


# ---------------------------------------------------------------------------------------------
# GPX and TCX: xmllint through the fixtures' validate.sh

def fixtures_dir():
    return os.environ.get("HANDOFF_FIXTURES") or os.path.join(REPO, "..", "shared", "fixtures")


def xmllint_oracle(path):
    script = os.path.join(fixtures_dir(), "xsd", "validate.sh")
    if not os.path.isfile(script):
        return {"ok": False, "valid": None, "errors": [],
                "error": f"{script} not found (set HANDOFF_FIXTURES to the fixtures folder)"}
    if shutil.which("xmllint") is None:
        return {"ok": False, "valid": None, "errors": [],
                "error": "xmllint not found (apt-get install libxml2-utils)"}
    try:
        run = subprocess.run(["sh", script, path], capture_output=True, text=True,
                             errors="replace", timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"ok": False, "valid": None, "errors": [], "error": error_text(exc)}
    lines = [line for line in (run.stderr + run.stdout).splitlines() if line.strip()]
    verdicts = [line for line in lines
                if line.endswith(" validates") or line.endswith(" fails to validate")]
    return {
        "ok": True,
        "valid": run.returncode == 0,
        "errors": [line for line in lines if line not in verdicts],
        "verdict": verdicts[-1] if verdicts else None,
        "error": None,
    }


# ---------------------------------------------------------------------------------------------
# GPX: gpxpy

def tpx_values(extensions):
    """hr, cad, speed from Garmin TrackPointExtension v1/v2 elements, at any depth."""
    found = {}
    for root in extensions or []:
        for el in root.iter():
            if not isinstance(el.tag, str) or not el.tag.startswith("{"):
                continue
            ns, _, local = el.tag[1:].partition("}")
            if ns in TPX_NAMESPACES and local in ("hr", "cad", "speed") and local not in found:
                found[local] = number(el.text)
    return found.get("hr"), found.get("cad"), found.get("speed")


def gpxpy_oracle(path):
    import gpxpy

    out = {"ok": False, "error": None}
    try:
        with open(path, encoding="utf-8") as f:
            gpx = gpxpy.parse(f)
        tracks = []
        for track in gpx.tracks:
            segments = []
            for segment in track.segments:
                points = []
                for p in segment.points:
                    hr, cad, speed = tpx_values(p.extensions)
                    points.append({
                        "time": unix_from_datetime(p.time) if p.time is not None else None,
                        "lat": p.latitude,
                        "lon": p.longitude,
                        "ele": p.elevation,
                        "hr": hr,
                        "cad": cad,
                        "speed": speed,
                    })
                segments.append(points)
            tracks.append(segments)
        moving = gpx.get_moving_data()
        out.update(
            ok=True,
            version=gpx.version,
            creator=gpx.creator,
            tracks=tracks,
            track_types=[t.type for t in gpx.tracks],
            length_2d=gpx.length_2d(),
            duration=gpx.get_duration(),
            moving_data={
                "moving_time": moving.moving_time,
                "stopped_time": moving.stopped_time,
                "moving_distance": moving.moving_distance,
                "stopped_distance": moving.stopped_distance,
                "max_speed": moving.max_speed,
            } if moving is not None else None,
        )
    except Exception as exc:
        out["ok"] = False
        out["error"] = error_text(exc)
    return out


# ---------------------------------------------------------------------------------------------
# TCX: ElementTree

def tcx_oracle(path):
    t = f"{{{TCX_NS}}}"
    ax = f"{{{AX_NS}}}"

    def text(el, child_path):
        found = el.find(child_path) if el is not None else None
        return found.text if found is not None else None

    out = {"ok": False, "error": None}
    try:
        root = ET.parse(path).getroot()
        if root.tag != f"{t}TrainingCenterDatabase":
            raise ValueError(f"root element is {root.tag}, not TrainingCenterDatabase v2")
        activities = root.findall(f"{t}Activities/{t}Activity")
        laps = []
        for activity in activities:
            for lap in activity.findall(f"{t}Lap"):
                tracks = lap.findall(f"{t}Track")
                points = []
                for track in tracks:
                    for tp in track.findall(f"{t}Trackpoint"):
                        tpx = tp.find(f"{t}Extensions/{ax}TPX")
                        points.append({
                            "time": parse_iso(text(tp, f"{t}Time")),
                            "lat": number(text(tp, f"{t}Position/{t}LatitudeDegrees")),
                            "lon": number(text(tp, f"{t}Position/{t}LongitudeDegrees")),
                            "alt": number(text(tp, f"{t}AltitudeMeters")),
                            "distance_m": number(text(tp, f"{t}DistanceMeters")),
                            "hr": number(text(tp, f"{t}HeartRateBpm/{t}Value")),
                            "cadence": first(number(text(tpx, f"{ax}RunCadence")),
                                             number(text(tp, f"{t}Cadence"))),
                            "speed": number(text(tpx, f"{ax}Speed")),
                        })
                laps.append({
                    "start_time": parse_iso(lap.get("StartTime")),
                    "total_time_s": number(text(lap, f"{t}TotalTimeSeconds")),
                    "distance_m": number(text(lap, f"{t}DistanceMeters")),
                    "avg_hr": number(text(lap, f"{t}AverageHeartRateBpm/{t}Value")),
                    "max_hr": number(text(lap, f"{t}MaximumHeartRateBpm/{t}Value")),
                    "avg_run_cadence": number(text(lap, f"{t}Extensions/{ax}LX/{ax}AvgRunCadence")),
                    "cadence": number(text(lap, f"{t}Cadence")),
                    "avg_speed": number(text(lap, f"{t}Extensions/{ax}LX/{ax}AvgSpeed")),
                    "trigger": text(lap, f"{t}TriggerMethod"),
                    "tracks": len(tracks),
                    "points": points,
                })
        out.update(
            ok=True,
            activities=len(activities),
            sport=activities[0].get("Sport") if activities else None,
            laps=laps,
        )
    except Exception as exc:
        out["ok"] = False
        out["error"] = error_text(exc)
    return out


# ---------------------------------------------------------------------------------------------

ORACLES = {
    "fit": [("garmin", garmin_oracle), ("fitdecode", fitdecode_oracle)],
    "gpx": [("xmllint", xmllint_oracle), ("gpxpy", gpxpy_oracle)],
    "tcx": [("xmllint", xmllint_oracle), ("tcx", tcx_oracle)],
}


def main(argv):
    usage = f"usage: {os.path.basename(argv[0])} FILE.fit|FILE.gpx|FILE.tcx ..."
    paths = argv[1:]
    if paths and paths[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if not paths:
        print(usage, file=sys.stderr)
        return 2
    formats = []
    for path in paths:
        fmt = os.path.splitext(path)[1].lower().lstrip(".")
        if fmt not in ORACLES:
            print(f"{usage}\n{path}: not a .fit, .gpx or .tcx file", file=sys.stderr)
            return 2
        formats.append(fmt)
    for fmt in sorted(set(formats)):
        for module, package in NEEDED[fmt]:
            try:
                __import__(module)
            except ImportError as exc:
                print(f"missing Python module {module} ({exc}): "
                      f"python3 -m pip install {package}", file=sys.stderr)
                return 2

    results = []
    for path, fmt in zip(paths, formats):
        entry = {"path": path, "format": fmt}
        for name, oracle in ORACLES[fmt]:
            try:
                entry[name] = oracle(path)
            except Exception as exc:  # a bug here must still land in the JSON
                entry[name] = {"ok": False, "error": error_text(exc)}
        results.append(entry)
    json.dump(jsonable({"files": results}), sys.stdout, allow_nan=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
