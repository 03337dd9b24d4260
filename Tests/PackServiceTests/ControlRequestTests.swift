import Foundation
import PackControl
import Testing

/// `ControlRequest` is an enum; on the socket it stays the flat object docs/control-api.md shows.
@Suite("Control requests: the documented JSON, both ways")
struct ControlRequestTests {
    /// Every command, as docs/control-api.md writes it (keys sorted, as `ControlJSON` writes them),
    /// and the request it is.
    static let documented: [(String, ControlRequest)] = [
        (#"{"command":"status"}"#, .status),
        (#"{"command":"start","solo":false}"#, .start(solo: false)),
        (#"{"command":"start"}"#, .start()),
        (#"{"command":"start","solo":true,"sport":"bike"}"#, .start(solo: true, sport: "bike")),
        (#"{"command":"start","live":true}"#, .start(live: true)),
        (#"{"command":"pause"}"#, .pause()),
        (#"{"command":"pause","units":"mi"}"#, .pause(units: "mi")),
        (#"{"command":"resume","units":"km"}"#, .resume(units: "km")),
        (#"{"command":"lap"}"#, .lap()),
        (#"{"command":"stop","keep":false}"#, .stop(keep: false)),
        (#"{"command":"stop","keep":true,"units":"mi"}"#, .stop(keep: true, units: "mi")),
        (#"{"command":"delete","local_only":false,"run":"12"}"#, .delete(run: "12", localOnly: false)),
        (#"{"command":"delete"}"#, .delete(run: nil)),
        (#"{"command":"baton"}"#, .baton),
        (#"{"command":"baton_pass","target":"bruno"}"#, .batonPass(target: "bruno")),
        (#"{"command":"baton_pass"}"#, .batonPass()),
        (#"{"command":"runs","limit":20}"#, .runs(limit: 20)),
        (#"{"command":"runs"}"#, .runs()),
        (#"{"command":"show","run":"last"}"#, .show(run: "last")),
        (#"{"command":"show","run":"3","units":"mi"}"#, .show(run: "3", units: "mi")),
        (#"{"command":"export","format":"fit","run":"last"}"#, .export(run: "last", format: "fit")),
        (#"{"command":"import","name":"morning.fit"}"#, .import(name: "morning.fit")),
        (#"{"command":"scan","seconds":10}"#, .scan(seconds: 10)),
        (#"{"classic":true,"command":"scan","seconds":10}"#, .scan(seconds: 10, classic: true)),
        (#"{"command":"pair","kind":"hr","target":"Handoff HR"}"#, .pair(target: "Handoff HR", kind: "hr")),
        (
            #"{"channel":3,"command":"pair","kind":"zephyr-hxm","pin":"1234","target":"00:07:80:12:34:56"}"#,
            .pair(target: "00:07:80:12:34:56", kind: "zephyr-hxm", channel: 3, pin: "1234")
        ),
        (
            #"{"command":"link","name":"Ada's pack","store":"https://store.example.org"}"#,
            .link(store: "https://store.example.org", name: "Ada's pack")
        ),
        (#"{"command":"link_status"}"#, .linkStatus),
        (#"{"command":"unlink"}"#, .unlink),
        (#"{"anywhere":true,"command":"sync","now":true}"#, .sync(now: true, anywhere: true)),
        (#"{"command":"sync"}"#, .sync()),
        (#"{"command":"home"}"#, .home),
        (#"{"command":"home_add","target":"HomeNet"}"#, .homeAdd(target: "HomeNet")),
        (#"{"command":"home_add"}"#, .homeAdd()),
        (#"{"command":"home_remove","target":"HomeNet"}"#, .homeRemove(target: "HomeNet")),
        (#"{"command":"sync_status"}"#, .syncStatus),
        (#"{"command":"doctor"}"#, .doctor),
        (#"{"command":"steps"}"#, .steps),
        (#"{"command":"debug_stall","seconds":8}"#, .debugStall(seconds: 8)),
        (#"{"command":"sensors"}"#, .sensors),
        (#"{"command":"forget","sensor":"Handoff HR"}"#, .forget(sensor: "Handoff HR")),
        (#"{"command":"sensor","sensor":"Handoff HR"}"#, .sensor(sensor: "Handoff HR")),
    ]

    @Test("Each documented request decodes to its case and encodes back to the same line")
    func roundTrip() throws {
        for (line, request) in Self.documented {
            #expect(try ControlJSON.decode(ControlRequest.self, from: line) == request, "\(line)")
            #expect(try ControlJSON.encode(request) == line, "\(request)")
        }
    }

    @Test("Every command name is covered, and each case says its name")
    func everyCommand() throws {
        let named = Set(Self.documented.map(\.1.name))
        #expect(named == Set(ControlRequest.Name.allCases))
        for (line, request) in Self.documented {
            #expect(line.contains(#""command":"\#(request.command)""#))
        }
    }

    @Test("A null is an absent value, as before (the pair example in the docs)")
    func nullIsAbsent() throws {
        let line = #"{"command":"pair","target":"00:07:80:12:34:56","kind":"zephyr-hxm","channel":null,"pin":"1234"}"#
        #expect(
            try ControlJSON.decode(ControlRequest.self, from: line)
                == .pair(target: "00:07:80:12:34:56", kind: "zephyr-hxm", pin: "1234"))
    }

    @Test("An unknown command is told apart from a malformed request")
    func unknownCommand() throws {
        #expect(throws: UnknownControlCommand(command: "fly")) {
            try ControlJSON.decode(ControlRequest.self, from: #"{"command":"fly"}"#)
        }
        #expect(throws: DecodingError.self) { try ControlJSON.decode(ControlRequest.self, from: #"{"run":"1"}"#) }
        #expect(throws: DecodingError.self) {
            try ControlJSON.decode(ControlRequest.self, from: #"{"command":"runs","limit":"many"}"#)
        }
    }
}
