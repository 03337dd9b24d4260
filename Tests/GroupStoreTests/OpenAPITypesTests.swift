import Foundation
import GroupStore
import HandoffAPI
import SensorCodecs
import Testing

/// The API document (Sources/GroupStore/Resources/openapi.json) against the API's types (module
/// HandoffAPI): each component schema is mapped to its type, and an example of the type with
/// every optional filled must write exactly the schema's properties, in nested objects too. A
/// field added to the document but not to the type fails here, and so does the other way round;
/// so does a schema that no type stands for.
@Suite("The API document and the API's types list the same fields")
struct OpenAPITypesTests {
    /// Schemas that are not JSON bodies: web forms and the multipart upload.
    static let notJSON: Set<String> = ["LoginForm", "DeviceForm", "RunUpload"]

    static let account = AccountView(
        id: 1, email: "ada@example.org", username: "ada", createdAt: "2026-11-01T00:00:00Z")
    static let group = GroupView(
        id: 1, name: "Relay club", owner: "ada", goalM: 100_000, deadline: "2027-01-01T00:00:00Z",
        inviteCode: "abcdefghjk", leaseHours: 6, autoPass: true, totalM: 5_000, percent: 5,
        createdAt: "2026-11-01T00:00:00Z")
    static let member = MemberView(
        username: "ada", distanceM: 5_000, runs: 1, weekM: 5_000, joinedAt: "2026-11-01T00:00:00Z", turn: 1, rank: 1)
    static let baton = BatonView(holder: "ada", since: "2026-11-01T00:00:00Z", expiresAt: "2026-11-01T06:00:00Z")
    static let leg = LegView(
        id: 1, runner: "ada", takenAt: "2026-11-01T00:00:00Z", endedAt: "2026-11-01T01:00:00Z", ended: "passed",
        passedTo: "bob", distanceM: 5_000, runs: 1)
    static let run: RunView = {
        var run = plainRun
        (run.runner, run.title, run.description) = ("ada", "Morning run", "Windy")
        run.hrv = hrv
        return run
    }()
    static let goal = GoalView(
        id: 1, period: "week", measure: "distance", sport: "run", target: 20_000, done: 12_400, percent: 62, streak: 3,
        history: [.init(start: "2026-11-16", done: 21_000, met: true)])
    static let hrv = HRVView(
        beats: 4_200, artifactShare: 0.004, trusted: true, rmssdMs: 6.1, sdnnMs: 41.3,
        dfaAlpha1: [[120, 1.12], [125, 1.08]], aerobicThresholdBpm: 151, anaerobicThresholdBpm: 168,
        laps: [.init(lap: 1, rmssdMs: 7.2, sdnnMs: 30.5)], method: "Lipponen & Tarvainen (2019)")
    static let plainRun = RunView(
        uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
        measures: .init(
            startedAt: "2026-11-01T00:00:00Z", elapsedS: 1_800, timerS: 1_790, distanceM: 5_000, sport: "run"),
        file: .init(format: "fit", size: 1_000, sha256: String(repeating: "0", count: 64)),
        uploadedAt: "2026-11-01T01:00:00Z", summary: .object(JSONObject([("source", .string("pack"))])),
        countedIn: [.init(groupID: 1, group: "Relay club", distanceM: 5_000, relayLeg: 1)],
        notCounted: [
            .init(groupID: 2, group: "Club 10k", reasonCode: "after_deadline", reason: "it started after the deadline")
        ], visibility: "groups", mapVisibility: "friends")

    static let record = RecordView(
        kind: "best_effort", name: "5 km", sport: "run", distanceM: 5_000, elapsedS: 1_404.2,
        uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", at: "2026-11-01T00:00:00Z")
    static let totals = RunTotals(runs: 3, distanceM: 15_000, timerS: 5_400, longestM: 8_000)
    static let photo = PhotoView(
        key: "0123456789abcdef0123456789abcdef", url: "/photos/0123456789abcdef0123456789abcdef", format: "jpeg",
        width: 480, height: 640, size: 120_000, visibility: "friends")

    static let feedItem = FeedItem(
        uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", runner: "bob", startedAt: "2026-11-01T00:00:00Z",
        sport: "run", distanceM: 5_000, elapsedS: 1_800, timerS: 1_790, map: true, kudos: 2, comments: 1,
        title: "Morning run", description: "Windy")
    static let comment = CommentView(
        id: 1, author: "bob", text: "Strong finish!", createdAt: "2026-11-01T01:00:00Z",
        editedAt: "2026-11-01T01:05:00Z", hidden: true)

    /// Every JSON schema of the document, by name, with an example of its type.
    static let examples: [String: any Encodable & Sendable] = [
        "Error": ErrorEnvelope(code: "invalid_name", message: "a group's name is 1 to 80 characters"),
        "HeartRateVariability": hrv,
        "Health": Health(status: "ok", version: "0"),
        "RunDetails": RunDetails(
            uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
            track: .init(
                toleranceM: 2, recordedPoints: 3, segments: [[[48.2, 16.37], [48.21, 16.37]]],
                marks: [.init(distanceM: 1000, latitude: 48.209, longitude: 16.37)]),
            series: .init(
                elapsedS: 600, stepS: 2.5, speedMS: [3, nil], heartRateBpm: [150, 151], altitudeM: [180, nil],
                cadenceSpm: [170, 171], cadenceRpm: [85, nil]),
            splits: [.init(distanceM: 1000, timerS: 300, heartRateBpm: 150, climbM: nil)],
            laps: [.init(trigger: "manual", startS: 0, endS: 600, distanceM: 2000, timerS: 600, heartRateBpm: nil)],
            pauses: [.init(startS: 100, endS: nil)]),
        "Account": account,
        "SignedIn": SignedIn(account: account, token: "t", expiresAt: "2026-12-01T00:00:00Z"),
        "SignUp": SignUp(
            email: "ada@example.org", username: "ada", password: "correct horse battery", inviteCode: "abcdefghjk"),
        "SignIn": SignIn(login: "ada", password: "correct horse battery"),
        "AccountChange": AccountChange(username: "ada", email: "a@example.org", password: "p", currentPassword: "q"),
        "AccountDeletion": AccountDeletion(password: "p"),
        "Weeks": Weeks(weeks: [.init(weekStarting: "2026-10-26", distanceM: 5_000, runs: 1)]),
        "DeviceCodeRequest": DeviceCodeRequest(name: "pack"),
        "DeviceCode": DeviceCode(
            deviceCode: "d", userCode: "BCDF-GHJK", verificationURI: "http://store/device",
            verificationURIComplete: "http://store/device?code=BCDF-GHJK", expiresIn: 900, interval: 5),
        "DeviceTokenRequest": DeviceTokenRequest(deviceCode: "d"),
        "DeviceToken": DeviceToken(accessToken: "t", expiresIn: 1, account: account),
        "DeviceApproval": DeviceApproval(userCode: "BCDF-GHJK"),
        "DeviceApproved": DeviceApproved(name: "pack"),
        "Device": DeviceView(id: 1, name: "pack", linkedAt: "2026-11-01T00:00:00Z", lastSeenAt: "2026-11-01T00:00:00Z"),
        "DeviceList": DeviceList(devices: []),
        "Group": group,
        "GroupList": GroupList(groups: [group]),
        "GroupCreate": GroupCreate(
            name: "Relay club", goalM: 100_000, deadline: "2027-01-01T00:00:00Z", leaseHours: 6, autoPass: true,
            sports: ["run": 1, "bike": 0.25]),
        "GroupChange": GroupChange(
            name: "Relay club", goalM: 100_000, deadline: .some(nil), leaseHours: 6, newInviteCode: true,
            autoPass: true, sports: ["run": 1, "walk": 1]),
        "GroupJoin": GroupJoin(inviteCode: "abcdefghjk"),
        "FriendAsk": FriendAsk(username: "bob"),
        "FeedItem": feedItem,
        "Feed": Feed(runs: [feedItem], nextCursor: "c"),
        "Friend": FriendView(username: "bob", status: "friends"),
        "FriendList": FriendList(friends: [FriendView(username: "bob", status: "asking")]),
        "Kudos": KudosView(count: 2, given: true, from: ["bob", "cleo"]),
        "CommentBody": CommentBody(text: "Strong finish!"),
        "Comment": comment,
        "ReportBody": ReportBody(
            kind: "comment", run: "0f8fad5b-d9cb-469f-a165-70867728950e", comment: 1, username: "bob", reason: "Spam"),
        "Photo": photo,
        "PhotoList": PhotoList(photos: []),
        "Report": ReportView(id: 1, kind: "comment", createdAt: "2026-11-01T01:00:00Z", resolved: false),
        "CommentList": CommentList(comments: [comment]),
        "RunChange": RunChange(
            visibility: "friends", mapVisibility: "private", title: "Hills", description: "Windy", sport: "walk"),
        "ManualRun": ManualRun(
            sport: "swim", startedAt: "2026-11-01T07:00:00Z", elapsedS: 1_800, distanceM: 1_500, notes: "Lane 3",
            poolLengthM: 25, strokes: 1_200, uuid: "0f8fad5b-d9cb-469f-a165-70867728950e"),
        "Record": record,
        "Training": TrainingView(
            weeks: [.init(weekStarting: "2026-11-23", sports: ["run": 12_000, "swim": 1_500])],
            days: [.init(date: "2026-11-25", load: 84.2, fitness: 41.5, fatigue: 60.1, form: -18.6)],
            restingHeartRate: 60, maximumHeartRate: 188, heartRateSource: "settings",
            zoneWeeks: [.init(weekStarting: "2026-11-23", seconds: [600, 1_800, 1_200, 300, 0])]),
        "RecordList": RecordList(records: [record]),
        "GoalSet": GoalSet(period: "week", measure: "distance", sport: "run", target: 20_000),
        "Goal": goal,
        "GoalList": GoalList(goals: [goal]),
        "Level": LevelView(
            level: 2, points: 156, distanceM: 6_000, nextLevelPoints: 300,
            objectives: [
                .init(id: "first_5k", name: "First 5 km", rule: "A run (sport run) of 5 km or more.", done: true)
            ]),
        "Steps": StepsView(days: [.init(date: "2026-11-25", steps: 8_214, outsideRuns: 3_120)], goal: 8_000),
        "StepsOutsideRuns": StepsOutsideRuns(days: [.init(date: "2026-11-25", steps: 3_120)], pack: "5f2c0a9e"),
        "RunTotals": totals,
        "ProfileFields": ProfileFields(
            nickname: "Ada", heightCm: 168, weightKg: 58.5, gender: "woman", birthYear: 1990),
        "Person": PersonView(
            username: "ada", profile: ProfileFields(nickname: "Ada"), photo: photo, friendship: "friends",
            totals: totals,
            runs: [feedItem]),
        "Comparison": ComparisonView(
            username: "ada", periods: [.init(period: "week", mine: totals, theirs: totals)],
            weeks: [.init(weekStarting: "2026-10-26", mineM: 5_000, theirsM: 0)]),
        "ProfileEntry": ProfileEntry(value: "168", visibility: "friends"),
        "ProfileSettings": ProfileSettings(
            nickname: .init(value: "Ada", visibility: "public"), heightCm: .init(value: "168", visibility: "friends"),
            weightKg: .init(value: "58.5", visibility: "private"), gender: .init(value: "woman", visibility: "private"),
            birthYear: .init(value: "1990", visibility: "groups")),
        "Member": member,
        "MemberList": MemberList(members: [member], nextCursor: "r1.0.1"),
        "MemberPage": MemberPage(members: [member], nextCursor: "m1.5000000.1.1", memberCount: 2),
        "Rotation": Rotation(members: ["ada"]),
        "Baton": baton,
        "Leg": leg,
        "BatonState": BatonState(baton: baton, legs: [leg], legsNextCursor: "l1.1793491200000000000.1"),
        "LegPage": LegPage(legs: [leg], nextCursor: "l1.1793491200000000000.1"),
        "Progress": ProgressView(
            group: group, members: [member], formerMembersM: 0, baton: baton, legs: [leg], nextCursor: "m1.5000000.1.1",
            memberCount: 2, me: member, legsNextCursor: "l1.1793491200000000000.1"),
        "BatonPass": BatonPass(to: "bob"),
        "GroupEvent": GroupEventView(
            id: 7, kind: "run_counted", at: "2026-11-28T09:00:00Z", holder: "ada", from: "bob", runner: "ada",
            distanceM: 5_000, totalM: 41_000),
        "GroupEventList": GroupEventList(
            events: [GroupEventView(id: 8, kind: "baton_taken", at: "2026-11-28T09:05:00Z", holder: "bob")], lastID: 8),
        "Run": run,
        "RunList": RunList(runs: [run], nextCursor: "c"),
        "Notification": notification,
        "NotificationList": NotificationList(notifications: [notification], unread: 1, next: 41),
        "NotificationsRead": NotificationsRead(upTo: 42),
        "NotificationCount": NotificationCount(unread: 0),
        "LivePoint": livePoint,
        "LiveUpdate": LiveUpdate(sport: "run", startedAt: "2026-11-28T09:00:00Z", points: [livePoint], ended: true),
        "LiveAccepted": LiveAccepted(run: "0f8fad5b-d9cb-469f-a165-70867728950e", accepted: 1, points: 12),
        "LiveRun": LiveRunView(
            run: "0f8fad5b-d9cb-469f-a165-70867728950e", runner: "ada", sport: "run", startedAt: "2026-11-28T09:00:00Z",
            lastSeenAt: "2026-11-28T09:03:05Z", endedAt: "2026-11-28T09:40:00Z", distanceM: 540, mapShown: true,
            points: [livePoint]),
        "LiveLinkRequest": LiveLinkRequest(hours: 4),
        "LiveLink": liveLink,
        "LiveLinkList": LiveLinkList(links: [liveLink]),
    ]

    static let livePoint = LivePoint(
        elapsedS: 180, at: "2026-11-28T09:03:00Z", lat: 48.2049, lon: 16.37, distanceM: 540, speedMps: 3.1,
        heartRate: 152)
    static let liveLink = LiveLinkView(
        id: 3, run: "0f8fad5b-d9cb-469f-a165-70867728950e", url: "https://store.example.org/live/0123abcd",
        createdAt: "2026-11-28T09:01:00Z", expiresAt: "2026-11-28T13:01:00Z")

    static let notification = NotificationView(
        id: 42, kind: "kudos", at: "2026-11-28T09:00:00Z", read: false, text: "bob gave kudos to your run.",
        href: "/runs/0f8fad5b-d9cb-469f-a165-70867728950e", actor: "bob", group: 7,
        run: "0f8fad5b-d9cb-469f-a165-70867728950e")

    static let document: JSONObject = {
        (try? JSONParser.parse(OpenAPIDocument.json))?.objectValue ?? JSONObject()
    }()

    static var schemas: JSONObject { document["components"]?.objectValue?["schemas"]?.objectValue ?? JSONObject() }

    /// The names of `object`'s members.
    static func keys(_ object: JSONObject?) -> Set<String> { Set((object?.members ?? []).map(\.key)) }

    /// Compares a schema's properties with the example's keys, and goes on into inline objects
    /// (an array's `items` too); `$ref`s are compared under their own name.
    static func compare(_ schema: JSONObject, _ value: JSONValue, at path: String, _ problems: inout [String]) {
        if let items = schema["items"]?.objectValue {
            guard let first = value.arrayValue?.first else {
                if items["properties"] != nil { problems.append("\(path): the example's array is empty") }
                return
            }
            compare(items, first, at: path + "[0]", &problems)
            return
        }
        guard let properties = schema["properties"]?.objectValue else { return }
        guard let object = value.objectValue else {
            problems.append("\(path): the type writes no object")
            return
        }
        let documented = keys(properties)
        let written = keys(object)
        for missing in documented.subtracting(written).sorted() {
            problems.append("\(path).\(missing) is in openapi.json but not in the type")
        }
        for extra in written.subtracting(documented).sorted() {
            problems.append("\(path).\(extra) is in the type but not in openapi.json")
        }
        for member in properties.members {
            guard let property = member.value.objectValue, property["$ref"] == nil,
                let nested = object[member.key]
            else { continue }
            compare(property, nested, at: "\(path).\(member.key)", &problems)
        }
    }

    @Test("Every schema of openapi.json has a type in HandoffAPI, or is a form")
    func everySchemaHasAType() {
        let names = Self.keys(Self.schemas)
        #expect(!names.isEmpty, "openapi.json has no component schemas")
        #expect(names.subtracting(Self.notJSON) == Set(Self.examples.keys))
        #expect(Self.notJSON.isSubset(of: names))
    }

    @Test("Each type writes exactly its schema's properties", arguments: OpenAPITypesTests.examples.keys.sorted())
    func fields(_ name: String) throws {
        let schema = try #require(Self.schemas[name]?.objectValue, "\(name) is not in openapi.json")
        let example = try #require(Self.examples[name])
        let value = try JSONParser.parse(Array(try JSONEncoder().encode(example)))
        var problems: [String] = []
        Self.compare(schema, value, at: name, &problems)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("Each type reads back what it writes (the replies and requests decode as they encode)")
    func roundTrip() throws {
        func check<T: Codable & Equatable>(_ value: T) throws {
            let decoded = try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
            #expect(decoded == value, "\(T.self)")
        }
        try check(Self.run)
        try check(Self.group)
        try check(Self.leg)
        try check(Self.baton)
        try check(GroupChange(deadline: .some(nil)))
        try check(GroupChange(deadline: .some("2027-01-01T00:00:00Z")))
        try check(GroupChange(name: "x"))
        try check(RunList(runs: [Self.run], nextCursor: nil))
    }
}
