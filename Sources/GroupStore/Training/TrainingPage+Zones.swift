import HandoffModel

extension TrainingPage {
    /// Time in the five heart-rate zones per week, as stacked bars (zone 1 at the bottom) with a
    /// table; nil when no run of the span has heart rate.
    static func zoneChart(_ picture: TrainingPicture) -> Weekly? {
        let totals = picture.zoneWeeks.map { $0.seconds.reduce(0, +) }
        guard let most = totals.max(), most > 0 else { return nil }
        let maximum = picture.heartRates.maximum
        // The top of the axis: whole hours, at least one.
        let top = max(3600, (most / 3600).rounded(.up) * 3600)
        let plot = (width: width - left - 8, height: height - 30)
        let step = plot.width / Double(max(1, picture.zoneWeeks.count))
        var bars: [Bar] = []
        var ticks: [Tick] = []
        for (index, week) in picture.zoneWeeks.enumerated() {
            var base = 0.0
            let x = left + Double(index) * step + step * 0.15
            for (zone, seconds) in week.seconds.enumerated() where seconds > 0 {
                let h = seconds / top * plot.height
                bars.append(
                    Bar(
                        kind: "z\(zone + 1)", x: RunMap.number(x), y: RunMap.number(10 + plot.height - base - h),
                        width: RunMap.number(step * 0.7), height: RunMap.number(h),
                        title:
                            "Zone \(zone + 1), week of \(PageFormat.day(instant(week.monday))): \(Units.clock(seconds))"
                    ))
                base += h
            }
            if (picture.zoneWeeks.count - 1 - index) % (picture.zoneWeeks.count <= 12 ? 3 : 8) == 0 {
                ticks.append(Tick(x: RunMap.number(x + step * 0.35), label: short(instant(week.monday))))
            }
        }
        let names = (1...5).map { zone in
            let from = Int((Double(maximum) * (0.4 + 0.1 * Double(zone))).rounded(.down))
            let to = Int((Double(maximum) * (0.5 + 0.1 * Double(zone))).rounded(.down))
            return Key(kind: "z\(zone)", name: zone == 5 ? "Zone 5 (\(from)+ bpm)" : "Zone \(zone) (\(from)–\(to))")
        }
        return Weekly(
            label:
                "Time in heart-rate zones per week over \(picture.zoneWeeks.count) weeks, by a maximum of \(maximum) bpm; the most, \(Units.clock(most)).",
            top: top / 3600 < 1e9 ? "\(Int(top / 3600)) h" : "–", bars: bars, ticks: ticks, legend: names,
            rows: zip(picture.zoneWeeks, totals).reversed().map { week, total in
                Row(
                    week: PageFormat.day(instant(week.monday)),
                    total: total > 0
                        ? week.seconds.enumerated().filter { $0.element > 0 }.map {
                            "Z\($0.offset + 1) \(Units.clock($0.element))"
                        }.joined(separator: " · ") : "—")
            })
    }
}
