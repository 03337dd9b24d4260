import HandoffAPI
import PackControl

/// The demo group after the sync, from the store's progress.
struct DemoGroupReport: Encodable {
    let store: String
    let name: String
    let goalM: Double
    let totalM: Double
    let percent: Double
    let batonHolder: String?
    let members: [Member]
    let synced: Bool
    /// The demo's account, to sign in at the store's page while the demo waits.
    let signIn: SignIn

    struct SignIn: Encodable {
        let username: String
        let password: String
    }

    struct Member: Encodable {
        let username: String
        let distanceM: Double
        let runs: Int
        enum CodingKeys: String, CodingKey {
            case username, runs
            case distanceM = "distance_m"
        }
    }

    enum CodingKeys: String, CodingKey {
        case store, name, percent, members, synced
        case signIn = "sign_in"
        case goalM = "goal_m", totalM = "total_m", batonHolder = "baton_holder"
    }

    init(store: String, progress: ProgressView, synced: Bool, signIn: SignIn) {
        self.store = store
        self.synced = synced
        self.signIn = signIn
        name = progress.group.name
        goalM = progress.group.goalM
        totalM = progress.group.totalM
        percent = progress.group.percent
        batonHolder = progress.baton.holder
        members = progress.members.map {
            Member(username: $0.username, distanceM: $0.distanceM, runs: Int(clamping: $0.runs))
        }
    }

    func render(_ units: Units) -> String {
        var lines = [
            "Group \"\(name)\" on \(store): \(Format.distance(totalM, units)) of \(Format.distance(goalM, units)) (\(Format.fixed(percent, 1)) %)",
            "Baton: " + (batonHolder.map { "with \($0)" } ?? "free"),
        ]
        for member in members {
            lines.append(
                "  \(member.username): \(Format.distance(member.distanceM, units)) in \(Format.count(member.runs, "run"))"
            )
        }
        return lines.joined(separator: "\n")
    }
}
