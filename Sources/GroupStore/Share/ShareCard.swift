import ActivityFormats
import Foundation
import HandoffModel

/// A card a runner shares: a run (its title, when, distance, time, pace and route without its
/// ends) or a week (distance, runs, time, pace, its routes and the ring of the weekly goal), as
/// an SVG of 1200 × 630 (the size link previews use). Drawn by the store with attributes only
/// (no style, no script, no font or image from elsewhere), every text escaped; a page's script
/// turns it into a PNG in the browser.
enum ShareCard {
    static let width = 1200
    static let height = 630
    static let font = "DejaVu Sans, Arial, Helvetica, sans-serif"

    struct Run: Sendable, Equatable {
        var title: String
        var when: String
        var runner: String
        var distance: String
        var time: String
        var pace: String
        /// The route's lines in a 480-unit square, without its ends; nil when none may be shown.
        var route: [String]?
    }

    struct Week: Sendable, Equatable {
        var title: String
        var runner: String
        var distance: String
        /// "3 runs · 2:41:07 · 5:32 /km".
        var line: String
        /// The share of the goal (0–1 and beyond), nil without a goal.
        var goal: Double?
        var goalText: String
        /// Each run's route in a 64-unit square (`run.thumbnail`), at most four.
        var routes: [[String]]
    }

    static func text(
        _ x: Int, _ y: Int, _ size: Int, _ text: String, bold: Bool = false, fill: String = "#ffffff"
    )
        -> String
    {
        "<text x=\"\(x)\" y=\"\(y)\" font-family=\"\(font)\" font-size=\"\(size)\"\(bold ? " font-weight=\"700\"" : "") fill=\"\(fill)\">\(XMLText.escape(text))</text>"
    }

    /// A line of at most `length` characters, cut with an ellipsis.
    static func cut(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    static func frame(_ body: [String], label: String) -> String {
        ([
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"\(XMLText.escape(label))\">",
            "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#0f3d5c\"/>",
        ]
            + body + [text(60, 585, 24, "Handoff", bold: true, fill: "#9cc4df"), "</svg>"]).joined(separator: "\n")
            + "\n"
    }

    static func run(_ card: Run) -> String {
        var body = [
            text(60, 100, 44, cut(card.title, 34), bold: true),
            text(60, 150, 26, cut("\(card.when) · \(card.runner)", 48), fill: "#cfe3f0"),
            text(60, 330, 104, card.distance, bold: true),
            text(60, 410, 36, "\(card.time) · \(card.pace)"),
            "<rect x=\"660\" y=\"60\" width=\"480\" height=\"480\" rx=\"24\" fill=\"#164e73\"/>",
        ]
        if let route = card.route {
            body += route.map {
                "<polyline transform=\"translate(660 60)\" points=\"\($0)\" fill=\"none\" stroke=\"#ffb347\" stroke-width=\"6\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>"
            }
        } else {
            body.append(text(780, 310, 28, "No map to show", fill: "#9cc4df"))
        }
        return frame(body, label: "\(card.title): \(card.distance) in \(card.time)")
    }

    static func week(_ card: Week) -> String {
        let (cx, cy, r) = (900.0, 270.0, 170.0)
        let circumference = 2 * Double.pi * r
        let share = min(max(card.goal ?? 0, 0), 1)
        var body = [
            text(60, 100, 44, cut(card.title, 34), bold: true),
            text(60, 150, 26, cut(card.runner, 48), fill: "#cfe3f0"),
            text(60, 330, 104, card.distance, bold: true),
            text(60, 410, 32, cut(card.line, 40)),
            "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"\(r)\" fill=\"none\" stroke=\"#164e73\" stroke-width=\"36\"/>",
        ]
        if card.goal != nil {
            body.append(
                "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"\(r)\" fill=\"none\" stroke=\"#ffb347\" stroke-width=\"36\" stroke-linecap=\"round\" stroke-dasharray=\"\(RunMap.number(circumference * share)) \(RunMap.number(circumference))\" transform=\"rotate(-90 \(Int(cx)) \(Int(cy)))\"/>"
            )
        }
        body.append(
            "<text x=\"\(Int(cx))\" y=\"\(Int(cy) + 22)\" text-anchor=\"middle\" font-family=\"\(font)\" font-size=\"64\" font-weight=\"700\" fill=\"#ffffff\">\(XMLText.escape(card.goalText))</text>"
        )
        for (index, lines) in card.routes.prefix(4).enumerated() {
            let x = 60 + index * 130
            body.append("<rect x=\"\(x)\" y=\"450\" width=\"112\" height=\"112\" rx=\"12\" fill=\"#164e73\"/>")
            body += lines.map {
                "<polyline transform=\"translate(\(x) 450) scale(1.75)\" points=\"\($0)\" fill=\"none\" stroke=\"#ffb347\" stroke-width=\"2\" stroke-linejoin=\"round\"/>"
            }
        }
        return frame(body, label: "\(card.title): \(card.distance)")
    }
}

extension RunFacts {
    /// The route without its ends, fitted in a square of `side` units inside `margin`, as SVG
    /// polyline points, each segment thinned to at most `points` points; nil without a route.
    func routeLines(side: Double, margin: Double, points: Int) -> [String]? {
        guard let track = withoutEnds().track else { return nil }
        let world = track.positions.map { $0.map(WebMercator.project) }
        let all = world.joined()
        guard let first = all.first else { return nil }
        var (minX, maxX, minY, maxY) = (first.x, first.x, first.y, first.y)
        for p in all { (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y)) }
        let inner = side - 2 * margin
        let span = max(maxX - minX, maxY - minY, 1e-12)
        let scale = inner / span
        let (offsetX, offsetY) = (
            margin + (inner - (maxX - minX) * scale) / 2, margin + (inner - (maxY - minY) * scale) / 2
        )
        return world.map { segment -> String in
            let step = max(1, (segment.count + points - 1) / points)
            var kept = stride(from: 0, to: segment.count, by: step).map { segment[$0] }
            if let last = segment.last, kept.last.map({ $0 != last }) ?? true { kept.append(last) }
            return kept.map {
                RunMap.number(offsetX + ($0.x - minX) * scale) + "," + RunMap.number(offsetY + ($0.y - minY) * scale)
            }.joined(separator: " ")
        }
    }
}
