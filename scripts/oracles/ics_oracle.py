#!/usr/bin/env python3
"""Reads an iCalendar feed (RFC 5545) from standard input with PyPI's icalendar, an independent
reader, and prints what it found as JSON: the calendar's name, each event (its start as an aware
time and in UTC, its weekly days, duration, alarms, summary and description), the time zones the
feed uses but does not define, and whether the feed's own VTIMEZONE gives each event start the
same UTC offset as the system's time zone database (zoneinfo) does, there and half a year on.
"""
import datetime
import json
import sys
import zoneinfo

import icalendar


def main():
    data = sys.stdin.buffer.read()
    calendar = icalendar.Calendar.from_ical(data)
    timezones = {str(tz["TZID"]): tz for tz in calendar.walk("VTIMEZONE")}
    events = []
    for event in calendar.walk("VEVENT"):
        start = event.decoded("DTSTART")
        tzid = event["DTSTART"].params.get("TZID")
        agrees = None
        if tzid:
            own = timezones[tzid].to_tz()
            system = zoneinfo.ZoneInfo(tzid)
            naive = start.replace(tzinfo=None)
            later = naive + datetime.timedelta(days=182)
            agrees = all(own.utcoffset(t) == t.replace(tzinfo=system).utcoffset() for t in (naive, later))
        rrule = event.get("RRULE")
        events.append({
            "uid": str(event["UID"]),
            "summary": str(event["SUMMARY"]),
            "description": str(event.get("DESCRIPTION", "")),
            "start": start.isoformat(),
            "start_utc": start.astimezone(datetime.timezone.utc).isoformat(),
            "tzid": tzid,
            "weekday": start.isoweekday(),
            "freq": rrule.get("FREQ") if rrule else None,
            "byday": rrule.get("BYDAY") if rrule else None,
            "duration_s": event.decoded("DURATION").total_seconds() if "DURATION" in event else None,
            "alarms": [{"action": str(a["ACTION"]), "trigger_s": a.decoded("TRIGGER").total_seconds()}
                       for a in event.walk("VALARM")],
            "tz_agrees": agrees,
        })
    print(json.dumps({
        "name": str(calendar.get("X-WR-CALNAME", "")),
        "version": str(calendar.get("VERSION", "")),
        "prodid": str(calendar.get("PRODID", "")),
        "events": events,
        "missing_tzids": sorted(calendar.get_missing_tzids()) if hasattr(calendar, "get_missing_tzids") else [],
        "long_lines": [len(line) for line in data.split(b"\r\n") if len(line) > 75],
        "bare_newlines": data.replace(b"\r\n", b"").count(b"\n"),
    }))


if __name__ == "__main__":
    main()
