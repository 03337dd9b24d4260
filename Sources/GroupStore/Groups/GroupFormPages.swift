import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// A group's form, to create one or for its owner to change it: the goal in the person's units,
/// the deadline as a date (the end of that day in their time zone), the lease in hours.
struct GroupForm: Sendable, Equatable {
    var action: String
    var button: String
    var name = ""
    var unit: String
    var goal = ""
    var deadline = ""
    var lease: String
    var autoPass = false

    /// An empty form for a new group.
    init(reader: Reader, leaseSeconds: Int64) {
        action = SitePath.newGroup.path
        button = "Create the group"
        unit = reader.units == .km ? "kilometres" : "miles"
        lease = Self.hours(leaseSeconds)
    }

    /// The group as it is, for its owner to change.
    init(_ group: Group, reader: Reader) {
        action = SitePath.editGroup(group.id).path
        button = "Save"
        name = group.name
        unit = reader.units == .km ? "kilometres" : "miles"
        goal = Self.number(Double(group.goalMM) / 1000 / reader.units.meters)
        deadline = group.deadline.map { Self.localDate($0, zone: reader.zone) } ?? ""
        lease = Self.hours(group.leaseSeconds)
        autoPass = group.autoPass
    }

    static func hours(_ seconds: Int64) -> String { number(Double(seconds) / 3600) }

    /// The date of `instant` in `zone`, as a date field takes it: "2027-03-31".
    static func localDate(_ instant: WallInstant, zone: String) -> String {
        let date = Date(timeIntervalSince1970: Double(instant.nanosecondsSinceEpoch) / 1e9)
        let offset = Int64(TimeZone(identifier: zone)?.secondsFromGMT(for: date) ?? 0)
        let civil = CivilTime(instant.advanced(byNanoseconds: offset * nanosecondsPerSecond))
        return String(format: "%04d-%02d-%02d", civil.year, civil.month, civil.day)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(format: "%.2f", value)
    }

    /// What the form sent, checked with the API's rules: name, goal (metres), deadline, lease
    /// (seconds), auto-pass. Editing `group`, a goal or deadline sent as the form showed it is
    /// kept as stored (so is the lease): 100 km shown as 62.14 mi stays 100 km, and a deadline that has passed
    /// does not stop the owner renaming the group.
    static func read(
        _ form: [String: String], reader: Reader, now: WallInstant, editing group: Group? = nil
    ) throws(StoreError) -> (name: String, goalMM: Int64, deadline: WallInstant?, leaseSeconds: Int64, autoPass: Bool) {
        let name = try GroupRoutes.name(form["name"] ?? "")
        let shown = group.map { GroupForm($0, reader: reader) }
        guard let goal = Double(form["goal"] ?? "") else {
            throw StoreError(.unprocessableContent, "invalid_goal", "the goal is a number of \(reader.units.name)")
        }
        guard let lease = Double(form["lease"] ?? "") else {
            throw StoreError(.unprocessableContent, "invalid_lease", "the baton's lease is a number of hours")
        }
        var deadline: WallInstant?
        if let group, let shown, (form["deadline"] ?? "") == shown.deadline {
            deadline = group.deadline
        } else if let text = form["deadline"], !text.isEmpty {
            // The end of that day, in the person's time zone (its offset on that day).
            let noon = Date(
                timeIntervalSince1970: (WallInstant(iso8601: text + "T12:00:00Z").map {
                    Double($0.nanosecondsSinceEpoch) / 1e9
                } ?? 0))
            let offset = TimeZone(identifier: reader.zone)?.secondsFromGMT(for: noon) ?? 0
            guard let day = WallInstant(iso8601: text + "T23:59:59Z") else {
                throw StoreError(.unprocessableContent, "invalid_deadline", "the deadline is a date such as 2027-03-31")
            }
            deadline = try GroupRoutes.deadline(
                iso(day.advanced(byNanoseconds: -Int64(offset) * nanosecondsPerSecond)), now: now)
        }
        let goalMM =
            if let group, form["goal"] == shown?.goal { group.goalMM } else {
                try GroupRoutes.goal(goal * reader.units.meters)
            }
        let leaseSeconds =
            if let group, form["lease"] == shown?.lease { group.leaseSeconds } else { try GroupRoutes.lease(lease) }
        return (name, goalMM, deadline, leaseSeconds, form["auto_pass"] == "1")
    }
}

/// Creating a group.
struct NewGroupPage: PageModel {
    static let template = "group-new"
    var frame: Frame
    var error: String?
    var groupForm: GroupForm
}

/// What an invite link shows: the group, then a way to join it.
struct JoinPage: PageModel {
    static let template = "join"
    var frame: Frame
    var error: String?
    var group: Summary?
    /// The group's page, for a member.
    var member: String?
    /// The join form's action, for a signed-in person who is not a member.
    var join: String?
    var anonymous: Anonymous?

    struct Summary: Sendable, Equatable {
        var total: String
        var goal: String
        var deadline: TimeText?
        var count: String
        var members: [String]
    }

    struct Anonymous: Sendable, Equatable {
        var signUp: String
        var signIn: String
    }
}

extension WebPages {
    func registerGroupFormPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/groups/new", next: { _ in SitePath.newGroup.path }) { _, _, account in
            Self.render(newGroupPage(account))
        }
        router.signedIn(.post, "/groups/new", next: { _ in SitePath.newGroup.path }) { request, context, account in
            let form = try await Self.form(request, context)
            let now = services.now()
            do {
                let fields = try GroupForm.read(form, reader: Reader(account), now: now)
                let group = try await repository.createGroup(
                    name: fields.name, goalMM: fields.goalMM, deadline: fields.deadline,
                    leaseSeconds: fields.leaseSeconds, autoPass: fields.autoPass, inviteCode: GroupRoutes.inviteCode(),
                    owner: account.id, now: now)
                context.logger.info("Group created from the web", metadata: ["group": "\(group.id)"])
                return Self.redirect(.group(group.id))
            } catch let error as StoreError where error.status == .unprocessableContent || error.status == .badRequest {
                var page = newGroupPage(account)
                page.error = error.message
                page.groupForm.name = form["name"] ?? ""
                page.groupForm.goal = form["goal"] ?? ""
                page.groupForm.deadline = form["deadline"] ?? ""
                page.groupForm.lease = form["lease"] ?? page.groupForm.lease
                page.groupForm.autoPass = form["auto_pass"] == "1"
                return Self.render(page, status: error.status)
            }
        }
        router.anyone(.get, "/join/:code") { request, context in
            let code = (context.parameters.get("code") ?? "").lowercased()
            let account = try await signedIn(request)
            return try await joinPage(code, account)
        }
        router.signedIn(.post, "/join/:code", next: { $0.uri.path }) { _, context, account in
            let code = (context.parameters.get("code") ?? "").lowercased()
            do {
                let group = try await repository.join(inviteCode: code, account: account.id, now: services.now())
                return Self.redirect(.group(group.id))
            } catch let error as StoreError where error.status == .notFound {
                return try await joinPage(code, account)
            }
        }
        router.signedIn(.post, "/groups/:group/edit") { request, context, account in
            let id = try context.id("group", "group")
            let form = try await Self.form(request, context)
            do {
                let shown = try await repository.group(id, account: account.id)
                let fields = try GroupForm.read(form, reader: Reader(account), now: services.now(), editing: shown)
                _ = try await repository.updateGroup(id, owner: account.id) { group in
                    group.name = fields.name
                    group.goalMM = fields.goalMM
                    group.deadline = fields.deadline
                    group.leaseSeconds = fields.leaseSeconds
                    group.autoPass = fields.autoPass
                }
                return Self.redirect(.group(id))
            } catch let error as StoreError
                where error.status != .serviceUnavailable && error.status != .insufficientStorage
            {
                return Self.message(
                    "Not saved", error.message, status: error.status, account: account,
                    link: Link(href: SitePath.group(id).path, label: "Back to the group's page"))
            }
        }
        router.signedIn(.post, "/groups/:group/rotation/:member/earlier") { _, context, account in
            try await move(context, account, earlier: true)
        }
        router.signedIn(.post, "/groups/:group/rotation/:member/later") { _, context, account in
            try await move(context, account, earlier: false)
        }
        router.signedIn(.post, "/groups/:group/leave") { _, context, account in
            try await leave(context, account, member: account.id)
        }
        router.signedIn(.post, "/groups/:group/members/:member/remove") { _, context, account in
            try await leave(context, account, member: try context.id("member", "member"))
        }
        router.signedIn(.post, "/groups/:group/invite") { _, context, account in
            let id = try context.id("group", "group")
            do {
                _ = try await repository.updateGroup(id, owner: account.id) { $0.inviteCode = GroupRoutes.inviteCode() }
            } catch let error as StoreError
                where error.status != .serviceUnavailable && error.status != .insufficientStorage
            {
                return Self.message(
                    error.status == .notFound ? "Not found" : "Not done", error.message, status: error.status,
                    account: account, link: Link(href: SitePath.group(id).path, label: "Back to the group's page"))
            }
            return Self.redirect(.group(id))
        }
    }

    /// The owner moves a member one place in the rotation; then back to the group's page.
    func move(_ context: StoreContext, _ account: Account, earlier: Bool) async throws -> Response {
        let id = try context.id("group", "group")
        do {
            try await services.repository.moveInRotation(
                id, owner: account.id, member: try context.id("member", "member"), earlier: earlier)
        } catch let error as StoreError
            where error.status != .serviceUnavailable && error.status != .insufficientStorage
        {
            return Self.message(
                error.status == .notFound ? "Not found" : "Not done", error.message, status: error.status,
                account: account, link: Link(href: SitePath.group(id).path, label: "Back to the group's page"))
        }
        return Self.redirect(.group(id))
    }

    func newGroupPage(_ account: Account) -> NewGroupPage {
        NewGroupPage(
            frame: Frame("Create a group", viewer: account.username, current: .newGroup),
            groupForm: GroupForm(reader: Reader(account), leaseSeconds: services.configuration.defaultLeaseSeconds))
    }

    /// A member leaves, or the owner removes one: then to the group's page, or home when the
    /// person left.
    func leave(_ context: StoreContext, _ account: Account, member: Int64) async throws -> Response {
        let id = try context.id("group", "group")
        do {
            try await services.repository.leave(id, member: member, by: account.id, now: services.now())
        } catch let error as StoreError
            where error.status != .serviceUnavailable && error.status != .insufficientStorage
        {
            return Self.message(
                error.status == .notFound ? "Not found" : "Not done", error.message, status: error.status,
                account: account, link: Link(href: SitePath.home.path, label: "Your page"))
        }
        return Self.redirect(member == account.id ? .home : .group(id))
    }

    func joinPage(_ code: String, _ account: Account?) async throws -> Response {
        let reader = account.map(Reader.init) ?? .standard
        guard let found = try await services.repository.invitation(code, account: account?.id) else {
            var page = JoinPage(frame: Frame("No such invitation", viewer: account?.username))
            page.error =
                "No group has this invite link: check it with the person who sent it. It may have been replaced."
            return Self.render(page, status: .notFound)
        }
        let group = found.group
        var page = JoinPage(frame: Frame("Join \(group.name)", viewer: account?.username))
        page.group = .init(
            total: PageFormat.distance(group.totalMM, reader.units),
            goal: PageFormat.distance(group.goalMM, reader.units),
            deadline: group.deadline.map { PageFormat.time($0, zone: reader.zone) },
            count: found.count == 1 ? "1 member" : "\(found.count) members", members: found.names)
        if account == nil {
            page.anonymous = .init(
                signUp: SitePath.signup(invite: code).path, signIn: SitePath.login(next: SitePath.join(code).path).path)
        } else if found.isMember {
            page.member = SitePath.group(group.id).path
        } else {
            page.join = SitePath.join(code).path
        }
        return Self.render(page)
    }
}
