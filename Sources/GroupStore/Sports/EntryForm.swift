import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

/// The form on the upload page that enters an activity by hand (`POST /runs/enter`): the same
/// checks and reply as `POST /v1/runs`, from fields a person types in their own units and zone.
struct EntryForm: Sendable, Equatable {
    var action = SitePath.runEnter.path
    var sports = Sport.allCases.map {
        Preferences.Choice(value: $0.rawValue, label: $0 == .other ? "Other" : $0.title, selected: $0 == .swim)
    }
    /// "km" or "mi": the distance field's unit.
    var unit: String
    /// Today in the person's zone, the date field's default (YYYY-MM-DD).
    var today: String
    /// What was wrong with the last try, with the fields as typed.
    var error: String?

    init(reader: Reader, now: WallInstant) {
        unit = reader.units.name
        today = String(PageFormat.local(now, zone: reader.zone).iso8601().prefix(10))
    }

    /// The entry the fields describe, or the sentence that says which field is wrong.
    static func entry(_ form: [String: String], reader: Reader, now: WallInstant) throws(StoreError) -> ManualRun {
        func refused(_ text: String) -> StoreError { StoreError(.unprocessableContent, "invalid_entry", text) }
        let date = (form["date"] ?? "").trimmingCharacters(in: .whitespaces)
        let time = (form["time"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let local = WallInstant(iso8601: "\(date)T\(time.isEmpty ? "12:00" : time):00Z") else {
            throw refused("Give the date as YYYY-MM-DD and the time as HH:MM, as the fields offer.")
        }
        guard let seconds = duration(form["duration"] ?? "") else {
            throw refused("Give the duration as minutes (45), or as H:MM:SS or MM:SS (1:02:30).")
        }
        let distanceText = (form["distance"] ?? "").replacingOccurrences(of: ",", with: ".")
            .trimmingCharacters(in: .whitespaces)
        guard let distance = Double(distanceText.isEmpty ? "0" : distanceText), distance.isFinite, distance >= 0 else {
            throw refused("Give the distance as a number of \(reader.units.name), such as 1.5.")
        }
        let sport = form["sport"] ?? ""
        var pool: Double?
        if sport == Sport.swim.rawValue, let text = form["pool"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let metres = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw refused("Give the pool length in metres (25, 50), or leave it empty for open water.")
            }
            pool = metres
        }
        var strokes: Int?
        if sport == Sport.swim.rawValue, let text = form["strokes"], !text.trimmingCharacters(in: .whitespaces).isEmpty
        {
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw refused("Give the strokes as a whole number, or leave the field empty.")
            }
            strokes = count
        }
        let notes = (form["notes"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return ManualRun(
            sport: sport, startedAt: iso(universal(local, zone: reader.zone)), elapsedS: seconds,
            distanceM: distance * reader.units.meters, notes: notes.isEmpty ? nil : notes, poolLengthM: pool,
            strokes: strokes)
    }

    /// "45" (minutes), "45:00" (minutes and seconds) or "1:02:30".
    static func duration(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":").map { Double($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil && $0! >= 0 && $0!.isFinite }) else {
            return nil
        }
        let values = parts.map { $0! }
        switch values.count {
        case 1: return values[0] * 60
        case 2: return values[0] * 60 + values[1]
        default: return values[0] * 3600 + values[1] * 60 + values[2]
        }
    }

    /// The instant at which a clock in `zone` showed `local` (read as if it were UTC).
    static func universal(_ local: WallInstant, zone: String) -> WallInstant {
        guard zone != "UTC", let timeZone = TimeZone(identifier: zone) else { return local }
        let guess = Date(timeIntervalSince1970: Double(local.nanosecondsSinceEpoch) / 1e9)
        let offset = timeZone.secondsFromGMT(
            for: guess.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: guess))))
        return local.advanced(byNanoseconds: -Int64(offset) * nanosecondsPerSecond)
    }
}

extension WebPages {
    func registerEntryPage(_ router: PageRouter) {
        router.signedIn(.post, "/runs/enter", next: { _ in SitePath.upload.path }) { request, context, account in
            let form = try await Self.form(request, context)
            let reader = Reader(account)
            let now = services.now()
            do {
                let entry = try EntryForm.entry(form, reader: reader, now: now)
                let (view, _) = try await RunRoutes(services: services).enter(entry, account: account.id)
                return Self.redirect(.run(view.uuid))
            } catch let error as StoreError where error.status == .unprocessableContent || error.status == .conflict {
                var page = UploadPage(viewer: account.username, limitBytes: services.configuration.uploads.maxRunBytes)
                page.entry = EntryForm(reader: reader, now: now)
                page.entry.error = error.message
                return Self.render(page, status: .unprocessableContent)
            }
        }
    }
}
