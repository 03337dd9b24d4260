/// A request to `handoffd` on its control socket: one JSON object on one line,
/// `{"command":"…", fields…}`. `docs/control-api.md` lists the commands.
///
/// Values a command needs but the request may leave out stay optional here: `handoffd` answers
/// their absence with its own `bad_request` message, after checking that it can serve the command
/// at all (`sync_disabled`, `no_bluetooth`), as it always has.
public enum ControlRequest: Hashable, Sendable {
    case status
    /// `solo`: run without the baton; `sport`: run, bike or walk (the configured one if absent).
    case start(solo: Bool? = nil, sport: String? = nil, live: Bool? = nil)
    /// `keep`: keep the run even when it is too short to be worth keeping. `units` (`km`, `mi`):
    /// the units of the message's distance; absent, the configured units.
    case stop(keep: Bool? = nil, units: String? = nil)
    case pause(units: String? = nil)
    case resume(units: String? = nil)
    case lap(units: String? = nil)
    /// `run`: its number, `last`, or a UUID prefix. `localOnly`: on the pack only, even when it
    /// is on the store.
    case delete(run: String?, localOnly: Bool? = nil)
    case baton
    /// `target`: the member to pass it to; absent, the next in the rotation.
    case batonPass(target: String? = nil)
    /// `limit`: how many, newest first.
    case runs(limit: Int? = nil)
    /// `units`: `mi` adds splits per mile (`mile_splits`).
    case show(run: String?, units: String? = nil)
    /// `format`: `fit`, `gpx`, `tcx` or `csv`. The file itself is passed as a descriptor.
    case export(run: String?, format: String? = nil)
    /// `name`: the file's name, for its format and for messages (the file itself is passed as a
    /// descriptor).
    case `import`(name: String? = nil)
    /// `seconds`: how long to listen. `classic`: a classic (BR/EDR) inquiry instead of an LE scan.
    case scan(seconds: Double? = nil, classic: Bool? = nil)
    /// `target`: an address or an advertised name. `kind`: `hr`, `footpod` or `bike`, or a classic
    /// strap's protocol (`polar-wearlink`, `zephyr-hxm`). `channel`: the RFCOMM channel, when SDP
    /// should not be asked. `pin`: the PIN a classic strap asks for, when not its maker's default.
    case pair(target: String?, kind: String? = nil, channel: Int? = nil, pin: String? = nil)
    case sensors
    /// `sensor`: a paired sensor's address or name.
    case forget(sensor: String?)
    case sensor(sensor: String?)
    /// `store`: the store's address; `name`: what the store calls this pack.
    case link(store: String?, name: String? = nil)
    case linkStatus
    case unlink
    /// `now`: forget retry times and release runs the store refused; `anywhere`: upload even away
    /// from home (once).
    case sync(now: Bool? = nil, anywhere: Bool? = nil)
    case syncStatus
    case home
    /// `target`: the network; absent, the Wi-Fi the pack is on.
    case homeAdd(target: String? = nil)
    case homeRemove(target: String?)
    case doctor
    /// Today's steps: outside runs (the pedometer, uploaded with the next sync) and in runs.
    case steps
    /// Only with `HANDOFF_DEBUG_COMMANDS=1` in handoffd's environment.
    case debugStall(seconds: Double? = nil)

    /// The command's name on the socket (`"link_status"`), for messages.
    public var command: String { name.rawValue }
}

extension ControlRequest {
    /// The command names on the socket.
    public enum Name: String, CaseIterable, Sendable {
        case status, start, stop, pause, resume, lap, delete, baton, runs, show, export, `import`, scan, pair
        case sensors, forget, sensor, link, unlink, sync, home, doctor, steps
        case batonPass = "baton_pass", linkStatus = "link_status", syncStatus = "sync_status"
        case homeAdd = "home_add", homeRemove = "home_remove", debugStall = "debug_stall"
    }

    public var name: Name {
        switch self {
        case .status: .status
        case .start: .start
        case .stop: .stop
        case .pause: .pause
        case .resume: .resume
        case .lap: .lap
        case .delete: .delete
        case .baton: .baton
        case .batonPass: .batonPass
        case .runs: .runs
        case .show: .show
        case .export: .export
        case .import: .import
        case .scan: .scan
        case .pair: .pair
        case .sensors: .sensors
        case .forget: .forget
        case .sensor: .sensor
        case .link: .link
        case .linkStatus: .linkStatus
        case .unlink: .unlink
        case .sync: .sync
        case .syncStatus: .syncStatus
        case .home: .home
        case .homeAdd: .homeAdd
        case .homeRemove: .homeRemove
        case .doctor: .doctor
        case .steps: .steps
        case .debugStall: .debugStall
        }
    }
}

/// A request whose `command` this side does not know (a newer client, or a typo).
public struct UnknownControlCommand: Error, Hashable, Sendable {
    public var command: String

    public init(command: String) { self.command = command }
}

extension ControlRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case command, run, limit, seconds, target, kind, sensor, classic, channel, pin, format, name, store, anywhere
        case now, solo, keep, units, sport, live
        case localOnly = "local_only"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let command = try c.decode(String.self, forKey: .command)
        guard let name = Name(rawValue: command) else { throw UnknownControlCommand(command: command) }
        func string(_ key: CodingKeys) throws -> String? { try c.decodeIfPresent(String.self, forKey: key) }
        func bool(_ key: CodingKeys) throws -> Bool? { try c.decodeIfPresent(Bool.self, forKey: key) }
        switch name {
        case .status: self = .status
        case .start: self = .start(solo: try bool(.solo), sport: try string(.sport), live: try bool(.live))
        case .stop: self = .stop(keep: try bool(.keep), units: try string(.units))
        case .pause: self = .pause(units: try string(.units))
        case .resume: self = .resume(units: try string(.units))
        case .lap: self = .lap(units: try string(.units))
        case .delete: self = .delete(run: try string(.run), localOnly: try bool(.localOnly))
        case .baton: self = .baton
        case .batonPass: self = .batonPass(target: try string(.target))
        case .runs: self = .runs(limit: try c.decodeIfPresent(Int.self, forKey: .limit))
        case .show: self = .show(run: try string(.run), units: try string(.units))
        case .export: self = .export(run: try string(.run), format: try string(.format))
        case .import: self = .import(name: try string(.name))
        case .scan:
            self = .scan(seconds: try c.decodeIfPresent(Double.self, forKey: .seconds), classic: try bool(.classic))
        case .pair:
            self = .pair(
                target: try string(.target), kind: try string(.kind),
                channel: try c.decodeIfPresent(Int.self, forKey: .channel), pin: try string(.pin))
        case .sensors: self = .sensors
        case .forget: self = .forget(sensor: try string(.sensor))
        case .sensor: self = .sensor(sensor: try string(.sensor))
        case .link: self = .link(store: try string(.store), name: try string(.name))
        case .linkStatus: self = .linkStatus
        case .unlink: self = .unlink
        case .sync: self = .sync(now: try bool(.now), anywhere: try bool(.anywhere))
        case .syncStatus: self = .syncStatus
        case .home: self = .home
        case .homeAdd: self = .homeAdd(target: try string(.target))
        case .homeRemove: self = .homeRemove(target: try string(.target))
        case .doctor: self = .doctor
        case .steps: self = .steps
        case .debugStall: self = .debugStall(seconds: try c.decodeIfPresent(Double.self, forKey: .seconds))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(command, forKey: .command)
        switch self {
        case .status, .baton, .sensors, .linkStatus, .unlink, .syncStatus, .home, .doctor, .steps: break
        case .start(let solo, let sport, let live):
            try c.encodeIfPresent(solo, forKey: .solo)
            try c.encodeIfPresent(sport, forKey: .sport)
            try c.encodeIfPresent(live, forKey: .live)
        case .stop(let keep, let units):
            try c.encodeIfPresent(keep, forKey: .keep)
            try c.encodeIfPresent(units, forKey: .units)
        case .pause(let units), .resume(let units), .lap(let units): try c.encodeIfPresent(units, forKey: .units)
        case .delete(let run, let localOnly):
            try c.encodeIfPresent(run, forKey: .run)
            try c.encodeIfPresent(localOnly, forKey: .localOnly)
        case .batonPass(let target), .homeAdd(let target), .homeRemove(let target):
            try c.encodeIfPresent(target, forKey: .target)
        case .runs(let limit): try c.encodeIfPresent(limit, forKey: .limit)
        case .show(let run, let units):
            try c.encodeIfPresent(run, forKey: .run)
            try c.encodeIfPresent(units, forKey: .units)
        case .export(let run, let format):
            try c.encodeIfPresent(run, forKey: .run)
            try c.encodeIfPresent(format, forKey: .format)
        case .import(let name): try c.encodeIfPresent(name, forKey: .name)
        case .scan(let seconds, let classic):
            try c.encodeIfPresent(seconds, forKey: .seconds)
            try c.encodeIfPresent(classic, forKey: .classic)
        case .pair(let target, let kind, let channel, let pin):
            try c.encodeIfPresent(target, forKey: .target)
            try c.encodeIfPresent(kind, forKey: .kind)
            try c.encodeIfPresent(channel, forKey: .channel)
            try c.encodeIfPresent(pin, forKey: .pin)
        case .forget(let sensor), .sensor(let sensor): try c.encodeIfPresent(sensor, forKey: .sensor)
        case .link(let store, let name):
            try c.encodeIfPresent(store, forKey: .store)
            try c.encodeIfPresent(name, forKey: .name)
        case .sync(let now, let anywhere):
            try c.encodeIfPresent(now, forKey: .now)
            try c.encodeIfPresent(anywhere, forKey: .anywhere)
        case .debugStall(let seconds): try c.encodeIfPresent(seconds, forKey: .seconds)
        }
    }
}
