import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird
import SensorCodecs

// The API's reply types (module HandoffAPI) made from the store's records, and answered as JSON
// with the context's encoder (sorted keys).

extension AccountView: ResponseGenerator, ResponseEncodable {
    /// An account as the API shows it: never its password hash.
    init(_ account: Account) {
        self.init(
            id: account.id, email: account.email, username: account.username,
            createdAt: CivilTime(account.created).iso8601())
    }
}

extension SignedIn: ResponseGenerator, ResponseEncodable {
    init(_ account: Account, _ issued: AccountService.Issued) {
        self.init(account: AccountView(account), token: issued.token, expiresAt: issued.expiresAt)
    }
}

extension Weeks: ResponseGenerator, ResponseEncodable {}
extension Health: ResponseGenerator, ResponseEncodable {}
extension RunDetails: ResponseGenerator, ResponseEncodable {}
extension DeviceCode: ResponseGenerator, ResponseEncodable {}
extension DeviceToken: ResponseGenerator, ResponseEncodable {}
extension DeviceApproved: ResponseGenerator, ResponseEncodable {}
extension DeviceList: ResponseGenerator, ResponseEncodable {}

extension DeviceView {
    init(_ device: Device) {
        self.init(id: device.id, name: device.name, linkedAt: iso(device.created), lastSeenAt: iso(device.lastSeen))
    }
}

extension GroupView: ResponseGenerator, ResponseEncodable {
    init(_ group: Group, owner: String?) {
        self.init(
            id: group.id, name: group.name, owner: owner, goalM: metres(group.goalMM),
            deadline: group.deadline.map(iso),
            inviteCode: group.inviteCode, leaseHours: Double(group.leaseSeconds) / 3600, autoPass: group.autoPass,
            totalM: metres(group.totalMM),
            percent: group.goalMM > 0 ? (Double(group.totalMM) * 1000 / Double(group.goalMM)).rounded() / 10 : 0,
            createdAt: iso(group.created), sports: group.sports.api)
    }
}

extension MemberView {
    init(_ member: Member) {
        self.init(
            username: member.username, distanceM: metres(member.distanceMM), runs: member.runs,
            weekM: metres(member.weekMM), joinedAt: iso(member.joined), turn: member.turn, rank: member.rank)
    }
}

extension ProgressView: ResponseGenerator, ResponseEncodable {
    init(_ progress: Progress) {
        self.init(
            group: GroupView(progress.group, owner: progress.ownerName),
            members: progress.members.map(MemberView.init), formerMembersM: metres(progress.group.formerMM),
            baton: BatonView(progress.baton), legs: progress.legs.rows.map(LegView.init),
            nextCursor: progress.top.next?.text, memberCount: progress.memberCount,
            me: progress.me.map(MemberView.init),
            legsNextCursor: progress.legs.next?.text)
    }
}

extension MemberPage: ResponseGenerator, ResponseEncodable {
    init(_ page: Page<Member>, count: Int64) {
        self.init(members: page.rows.map(MemberView.init), nextCursor: page.next?.text, memberCount: count)
    }
}

extension LegPage: ResponseGenerator, ResponseEncodable {
    init(_ page: Page<Leg>) { self.init(legs: page.rows.map(LegView.init), nextCursor: page.next?.text) }
}

extension GroupList: ResponseGenerator, ResponseEncodable {}
extension MemberList: ResponseGenerator, ResponseEncodable {}

extension RunView: ResponseGenerator, ResponseEncodable {
    init(_ run: StoredRun, _ counts: [RunCount], notCounted: [RunNotCounted]? = nil) {
        let summary = (try? StoreJSON.decoder.decode(JSONValue.self, from: Data(run.summary.utf8)))?.objectValue
        self.init(
            uuid: run.uuid,
            measures: Measures(
                startedAt: iso(run.started), elapsedS: Double(run.elapsedMS) / 1000,
                timerS: Double(run.timerMS) / 1000, distanceM: metres(run.distanceMM), sport: run.sport),
            file: File(format: run.format, size: run.size, sha256: run.sha256), uploadedAt: iso(run.uploaded),
            summary: .object(summary ?? JSONObject()),
            countedIn: counts.map {
                Counted(groupID: $0.groupID, group: $0.groupName, distanceM: metres($0.distanceMM), relayLeg: $0.legID)
            },
            notCounted: notCounted?.map {
                NotCounted(
                    groupID: $0.groupID, group: $0.groupName, reasonCode: $0.reason.rawValue,
                    reason: $0.reason.sentence)
            }, visibility: run.audience.run.rawValue, mapVisibility: run.audience.map.rawValue)
    }
}

extension RunList: ResponseGenerator, ResponseEncodable {}
