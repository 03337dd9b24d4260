import ActivityFormats
import Foundation
import HandoffModel

/// A run's route as the page draws it in SVG: the track simplified (`RouteShape`, within 2 m and
/// at most 2,000 points), projected with Web-Mercator and scaled into a box `width` units wide,
/// with the start, the finish, a mark at each kilometre or mile, and dashed lines across pauses
/// and gaps. The box keeps the projection's origin and scale (`origin`, `scale`), so a reader can
/// turn any point back into a position.
struct RunMap: Sendable, Equatable {
    static let width = 480.0

    var viewBox: String
    /// The world position (Web-Mercator units) of the box's top left corner, and box units per
    /// world unit: world = origin + box / scale.
    var originX: String
    var originY: String
    var scale: String
    var lines: [String]
    var gaps: [Gap]
    /// Where the run started and finished; nil on a route shown without its ends.
    var start: Spot?
    var finish: Spot?
    var marks: [Mark]
    var label: String
    /// The tolerance the simplified line keeps, in metres, and how many points it kept.
    var note: String
    /// The operator's map tiles under the route, when `--map-tiles` is set.
    var tiles: Tiles?

    /// The tiles of an OpenStreetMap-style server that cover the box, at the zoom where one tile
    /// is between 128 and 256 box units, and the server's attribution.
    struct Tiles: Sendable, Equatable {
        var images: [Image]
        var attribution: String
        var x: String
        var y: String

        struct Image: Sendable, Equatable {
            var href: String
            var x: String
            var y: String
            var size: String
        }

        init(_ source: MapTiles, origin: (x: Double, y: Double), span: (x: Double, y: Double), scale: Double) {
            // A tile spans 1/2^z world units: the largest z where it is at least 128 box units.
            let zoom = max(0, min(19, Int(log2(scale / 128).rounded(.down))))
            let count = Double(1 << zoom)
            let size = scale / count
            let columns = Int((origin.x * count).rounded(.down))...Int(((origin.x + span.x) * count).rounded(.down))
            let rows = Int((origin.y * count).rounded(.down))...Int(((origin.y + span.y) * count).rounded(.down))
            images = rows.flatMap { row in
                columns.compactMap { column -> Image? in
                    guard (0..<(1 << zoom)).contains(row) else { return nil }
                    let wrapped = ((column % (1 << zoom)) + (1 << zoom)) % (1 << zoom)
                    return Image(
                        href: source.url(z: zoom, x: wrapped, y: row),
                        x: RunMap.number((Double(column) / count - origin.x) * scale),
                        y: RunMap.number((Double(row) / count - origin.y) * scale), size: RunMap.number(size))
                }
            }
            attribution = source.attribution
            x = RunMap.number(RunMap.width - 4)
            y = RunMap.number(span.y * scale - 4)
        }
    }

    struct Spot: Sendable, Equatable {
        var x: String
        var y: String
    }

    struct Gap: Sendable, Equatable {
        var x1: String
        var y1: String
        var x2: String
        var y2: String
    }

    struct Mark: Sendable, Equatable {
        var x: String
        var y: String
        var label: String
    }

    /// nil when the run has no positions. `withoutEnds`: the facts are another person's view
    /// (`RunFacts.withoutEnds`), whose line starts and ends where the shown part does.
    init?(_ facts: RunFacts, units: Units, tiles source: MapTiles? = nil, withoutEnds: Bool = false) {
        guard let track = facts.track else { return nil }
        let world = track.positions.map { $0.map(WebMercator.project) }
        let all = Array(world.joined())
        guard let first = all.first, let last = world.last?.last else { return nil }
        let frame = MapFrame(all, latitude: track.firstLatitude)
        let box = frame.box
        viewBox = frame.viewBox
        tiles = source.map {
            Tiles(
                $0, origin: (frame.originX, frame.originY), span: (frame.spanX, frame.height / frame.scale),
                scale: frame.scale)
        }
        originX = String(format: "%.15g", frame.originX)
        originY = String(format: "%.15g", frame.originY)
        scale = String(format: "%.15g", frame.scale)
        lines = world.map { segment in
            segment.map {
                let b = box($0); return b.x + "," + b.y
            }.joined(separator: " ")
        }
        gaps = zip(world, world.dropFirst()).compactMap { before, after in
            guard let end = before.last, let begin = after.first else { return nil }
            let (a, b) = (box(end), box(begin))
            return Gap(x1: a.x, y1: a.y, x2: b.x, y2: b.y)
        }
        let (s, f) = (box(first), box(last))
        start = withoutEnds ? nil : Spot(x: s.x, y: s.y)
        finish = withoutEnds ? nil : Spot(x: f.x, y: f.y)
        marks = facts.marked(units).marks.map { mark in
            let b = box(WebMercator.project(Position(latitude: mark.latitude, longitude: mark.longitude)))
            return Mark(x: b.x, y: b.y, label: String(Int((mark.distance / units.meters).rounded())))
        }
        let distance = units.distance(meters: facts.summary.distance)
        let unit = units == .km ? "kilometre" : "mile"
        label =
            withoutEnds
            ? "The route, \(distance), without its first and last \(Int(RunFacts.hiddenEnds)) m: a mark at each \(unit)"
            : "The route, \(distance): the start in green, the finish in black, a mark at each \(unit)"
        note = String(
            format: "%d of %d positions drawn, none further than %.1f m from the line", track.pointCount,
            track.recorded, track.tolerance)
    }

    /// A box coordinate with two decimals: 1/200 of a unit, well under a metre on any run's map.
    static func number(_ value: Double) -> String {
        // A chart of a file's absurd values may reach here as infinity or NaN: draw it at 0.
        guard value.isFinite, abs(value) < 1e12 else { return "0" }
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100
        return sign + String(magnitude / 100)
            + (fraction == 0
                ? "" : fraction % 10 == 0 ? ".\(fraction / 10)" : (fraction < 10 ? ".0\(fraction)" : ".\(fraction)"))
    }
}

/// A box `RunMap.width` units wide around positions in Web-Mercator world units: at least 200 m
/// across, a margin of 6 %, and a shape between 2:1 and 1:1.25 (a run's map and a live one).
struct MapFrame {
    let originX: Double
    let originY: Double
    let scale: Double
    let spanX: Double
    let height: Double

    init(_ world: [(x: Double, y: Double)], latitude: Double) {
        var (minX, maxX, minY, maxY) = (world[0].x, world[0].x, world[0].y, world[0].y)
        for p in world {
            (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y))
        }
        let least = 200 / max(WebMercator.metersPerUnit(atLatitude: latitude), 1)
        var (spanX, spanY) = (max(maxX - minX, least), max(maxY - minY, least))
        spanX = max(spanX, spanY / 1.25)
        spanY = max(spanY, spanX / 2)
        let (centerX, centerY) = ((minX + maxX) / 2, (minY + maxY) / 2)
        spanX *= 1.12
        spanY *= 1.12
        scale = RunMap.width / spanX
        height = (spanY * scale).rounded(.up)
        originX = centerX - spanX / 2
        originY = centerY - height / scale / 2
        self.spanX = spanX
    }

    var viewBox: String { "0 0 \(Int(RunMap.width)) \(Int(height))" }

    /// A world position in the box's units, as the SVG writes them.
    func box(_ p: (x: Double, y: Double)) -> (x: String, y: String) {
        (RunMap.number((p.x - originX) * scale), RunMap.number((p.y - originY) * scale))
    }
}

/// The operator's tile server (`--map-tiles`): an OpenStreetMap-style `{z}/{x}/{y}` URL template,
/// and the attribution its terms ask for (`--map-attribution`). Without it no page asks anything
/// of another site.
public struct MapTiles: Sendable, Equatable {
    public let template: String
    public let attribution: String

    /// nil, with the reason, when the template is not an http(s) URL with `{z}`, `{x}` and `{y}`.
    public init(template: String, attribution: String) throws(StoreError) {
        let lower = template.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
            ["{z}", "{x}", "{y}"].allSatisfy(template.contains),
            !template.contains(where: { $0 == "\"" || $0 == "'" || $0 == " " || $0 == "<" || $0 == ">" })
        else {
            throw StoreError(
                .badRequest, "invalid_map_tiles",
                "the map tiles are a URL template such as https://tile.example.org/{z}/{x}/{y}.png")
        }
        self.template = template
        self.attribution = attribution
    }

    func url(z: Int, x: Int, y: Int) -> String {
        template.replacingOccurrences(of: "{z}", with: String(z)).replacingOccurrences(of: "{x}", with: String(x))
            .replacingOccurrences(of: "{y}", with: String(y))
    }

    /// The server's origin (scheme, host and port), for the pages' Content-Security-Policy.
    var origin: String {
        let afterScheme = template.range(of: "://").map { template[$0.upperBound...] } ?? Substring(template)
        let host = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(template.prefix(while: { $0 != ":" })) + "://" + host
    }
}
