import ActivityFormats
import Foundation
import HandoffModel

/// A run's charts as the page draws them in SVG, on one time axis: pace (or speed on a bike),
/// heart rate over the zones as bands, elevation and cadence. Each series is averaged into
/// `buckets` steps of the run's elapsed time, so a 6-hour run draws no more than a 20-minute one;
/// a step with no value (a pause, a sensor's gap) breaks the line.
struct RunChart: Sendable, Equatable {
    static let width = 480.0
    static let height = 150.0
    static let left = 44.0
    static let right = 8.0
    static let top = 8.0
    static let bottom = 22.0
    static let buckets = RunFacts.steps

    var id: String
    var title: String
    var label: String
    var viewBox: String
    var lines: [String]
    var bands: [Band]
    var pauses: [Band]
    var yTicks: [Tick]
    var xTicks: [Tick]
    var axisRight: String
    /// Said under the chart: where the heart-rate zones come from.
    var note: String?
    /// The values at the bottom and the top of the plot, for a reader that wants the numbers back.
    var scale: Scale

    struct Scale: Sendable, Equatable {
        var bottom: String
        var top: String
    }

    struct Band: Sendable, Equatable {
        var x: String
        var y: String
        var width: String
        var height: String
        var kind: String
        var label: String
    }

    struct Tick: Sendable, Equatable {
        var x: String
        var y: String
        var label: String
    }

    /// One value per bucket, nil where there is none.
    typealias Series = [Double?]

    /// The charts the run has data for.
    /// `own`: the runner's page, whose note may send them to Settings.
    static func charts(_ facts: RunFacts, units: Units, maximumHeartRate: Int?, own: Bool = true) -> [RunChart] {
        let axis = Axis(elapsed: facts.elapsed, pauses: facts.pauses.map { ($0.pause, $0.resume) })
        var charts: [RunChart] = []
        let series = facts.series
        let speed = series.speed
        if speed.contains(where: { $0 != nil }) {
            if facts.cycling {
                charts.append(
                    RunChart(
                        id: "speed", title: "Speed", series: speed.map { $0.map { $0 * 3600 / units.meters } },
                        axis: axis,
                        format: { String(format: "%.0f", $0) }, unit: units == .km ? "km/h" : "mph"))
            } else {
                // Pace in seconds per unit, faster at the top; beyond twice the median it is
                // clipped, so that a walk does not flatten a run.
                let pace = speed.map { $0.map { units.meters / $0 } }
                let sorted = pace.compactMap { $0 }.sorted()
                let cap = sorted.isEmpty ? 0 : sorted[sorted.count / 2] * 2
                charts.append(
                    RunChart(
                        id: "pace", title: "Pace", series: pace.map { $0.map { min($0, cap) } }, axis: axis,
                        format: { Units.clock($0) }, unit: "/" + units.name, inverted: true))
            }
        }
        if series.heartRate.contains(where: { $0 != nil }) {
            let highest = maximumHeartRate ?? facts.summary.highestPointHeartRate ?? 0
            var chart = RunChart(
                id: "heart-rate", title: "Heart rate", series: series.heartRate, axis: axis,
                format: { PageFormat.whole($0.rounded(.down)) }, unit: "bpm", zones: highest)
            chart.note =
                maximumHeartRate != nil
                ? "Zones: shares of your maximum heart rate, \(highest) bpm."
                : "Zones: shares of this run's highest heart rate, \(highest) bpm."
                    + (own ? " Give your maximum in Settings." : "")
            charts.append(chart)
        }
        if series.altitude.contains(where: { $0 != nil }) {
            charts.append(
                RunChart(
                    id: "elevation", title: "Elevation", series: series.altitude, axis: axis,
                    format: PageFormat.whole, unit: "m", least: 10))
        }
        if series.cadence.contains(where: { $0 != nil }) {
            charts.append(
                RunChart(
                    id: "cadence", title: "Cadence", series: series.cadence, axis: axis,
                    format: { PageFormat.whole($0.rounded(.down)) },
                    unit: facts.cycling ? "rpm" : "spm"))
        }
        if let alpha1 = alpha1(facts, axis: axis) { charts.append(alpha1) }
        return charts
    }

    /// The shared time axis: where each bucket's centre and each pause fall, and the ticks.
    struct Axis {
        let elapsed: Double
        let pauses: [(from: Double, to: Double)]
        let ticks: [(x: Double, label: String)]

        init(elapsed: Double, pauses: [(pause: Int64, resume: Int64?)]) {
            self.elapsed = elapsed
            let inner = RunChart.width - RunChart.left - RunChart.right
            self.pauses = pauses.map { pause in
                let from = Double(pause.pause) / 1e9
                let to = pause.resume.map { Double($0) / 1e9 } ?? elapsed
                return (RunChart.left + from / elapsed * inner, RunChart.left + min(to, elapsed) / elapsed * inner)
            }
            let step =
                [60.0, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600].first { elapsed / $0 <= 6 } ?? 43200
            ticks = stride(from: 0, through: elapsed, by: step).map { second in
                (RunChart.left + second / elapsed * inner, Units.clock(second))
            }
        }

        func x(bucket: Int) -> Double {
            RunChart.left + (Double(bucket) + 0.5) / Double(RunChart.buckets)
                * (RunChart.width - RunChart.left - RunChart.right)
        }
    }

    init(
        id: String, title: String, series: Series, axis: Axis, format: (Double) -> String, unit: String,
        inverted: Bool = false, zones highest: Int? = nil, least: Double = 0, levels: [Level] = []
    ) {
        self.id = id
        self.title = title
        let values = series.compactMap { $0 }
        var low = (values + levels.map(\.value)).min() ?? 0
        var high = (values + levels.map(\.value)).max() ?? 1
        if high - low < max(least, 1e-9) {
            let middle = (high + low) / 2
            (low, high) = (middle - max(least, 1) / 2, middle + max(least, 1) / 2)
        }
        let pad = (high - low) * 0.08
        (low, high) = (low - pad, high + pad)
        let plotTop = Self.top
        let plotBottom = Self.height - Self.bottom
        func y(_ value: Double) -> Double {
            let t = (value - low) / (high - low)
            return inverted ? plotTop + t * (plotBottom - plotTop) : plotBottom - t * (plotBottom - plotTop)
        }
        viewBox = "0 0 \(Int(Self.width)) \(Int(Self.height))"
        var lines: [String] = []
        var current: [String] = []
        for (index, value) in series.enumerated() {
            if let value {
                current.append(RunMap.number(axis.x(bucket: index)) + "," + RunMap.number(y(value)))
            } else if !current.isEmpty {
                lines.append(current.joined(separator: " "))
                current = []
            }
        }
        if !current.isEmpty { lines.append(current.joined(separator: " ")) }
        self.lines = lines
        bands = []
        if let highest, highest > 0 {
            // Five zones by share of the highest heart rate: 50–60 %, …, 90–100 %.
            for zone in 1...5 {
                let from = Double(highest) * (0.4 + 0.1 * Double(zone))
                let to = Double(highest) * (0.5 + 0.1 * Double(zone))
                let (a, b) = (min(max(y(from), plotTop), plotBottom), min(max(y(to), plotTop), plotBottom))
                guard a - b > 0.5 else { continue }
                bands.append(
                    Band(
                        x: RunMap.number(Self.left), y: RunMap.number(b),
                        width: RunMap.number(Self.width - Self.left - Self.right),
                        height: RunMap.number(a - b), kind: "zone z\(zone)",
                        label:
                            "zone \(zone): \(PageFormat.whole(from.rounded(.down)))–\(PageFormat.whole(to.rounded(.down))) bpm"
                    ))
            }
        }
        for level in levels {
            bands.append(
                Band(
                    x: RunMap.number(Self.left), y: RunMap.number(y(level.value) - 0.75),
                    width: RunMap.number(Self.width - Self.left - Self.right), height: "1.5", kind: "level",
                    label: level.label))
        }
        pauses = axis.pauses.map { pause in
            Band(
                x: RunMap.number(pause.from), y: RunMap.number(plotTop),
                width: RunMap.number(max(1, pause.to - pause.from)),
                height: RunMap.number(plotBottom - plotTop), kind: "pause", label: "paused")
        }
        yTicks = (0...3).map { i in
            let value = low + (high - low) * (0.1 + 0.8 * Double(i) / 3)
            return Tick(x: RunMap.number(Self.left - 4), y: RunMap.number(y(value) + 4), label: format(value))
        }
        xTicks = axis.ticks.map { Tick(x: RunMap.number($0.x), y: RunMap.number(Self.height - 6), label: $0.label) }
        scale = Scale(
            bottom: String(format: "%.6g", inverted ? high : low), top: String(format: "%.6g", inverted ? low : high))
        // The axes' path is the same on every chart: it is in the template (M44,8V128H472).
        axisRight = unit
        let shown = values.isEmpty ? "" : ", from \(format(values.min() ?? 0)) to \(format(values.max() ?? 0)) \(unit)"
        label = "\(title) over the run's time\(shown)"
    }
}
