import Foundation
import HandoffAPI
import HandoffModel
import PackControl
import PackSync
import TestSupport
import Testing

/// `handoff doctor`'s store and home-network lines, from the sync worker, against a real store on
/// loopback.
@Suite(.serialized)
struct DoctorStoreTests {
    @Test("The store: not linked is a warning; linked, ok with the account; revoked, a problem saying to link again")
    func store() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("dora")
            let pack = try TestPack("dora")
            let before = await pack.worker.doctorStoreCheck()
            #expect(before.level == .warning && before.action?.contains("handoff link --store") == true, "\(before)")

            try await pack.link(to: store, approvingWith: token)
            let linked = await pack.worker.doctorStoreCheck()
            #expect(linked.level == .ok, "\(linked)")
            #expect(linked.summary.contains("linked as dora") && linked.summary.contains("token is valid"))

            // Revoked from the account's device list: the very next check says so.
            let devices = try await store.call(.get, "/v1/devices", token: token)
            let device = try #require(try devices.decode(DeviceList.self).devices.first?.id)
            #expect(try await store.call(.delete, "/v1/devices/\(device)", token: token).status == 204)
            let revoked = await pack.worker.doctorStoreCheck()
            #expect(revoked.level == .problem, "\(revoked)")
            #expect(revoked.summary.contains("refused the pack's token"))
            #expect(revoked.action?.contains("handoff link --store \(store.url.absoluteString)") == true)
        }
    }

    @Test("A store that does not answer: a problem at home, a warning away (runs wait for home)")
    func unreachable() async throws {
        let home = try TestPack("eli")
        let away = try TestPack("eli-away", policy: HomePolicy(ssids: ["HomeNet"], source: .iw))
        try await LiveStore.run { store in
            let token = try await store.signUp("eli")
            try await home.link(to: store, approvingWith: token)
            let second = try await store.signUp("eli2")
            try await away.link(to: store, approvingWith: second)
        }
        // The store has stopped.
        let atHome = await home.worker.doctorStoreCheck()
        #expect(atHome.level == .problem, "\(atHome)")
        #expect(atHome.summary.contains("does not answer"))
        await away.worker.networkChanged(
            WirelessState(associated: true, ssid: "Cafe", detail: "iw on wlan0: connected"))
        let notHome = await away.worker.doctorStoreCheck()
        #expect(notHome.level == .warning, "\(notHome)")
        #expect(notHome.action?.contains("when the pack is home") == true)
    }

    @Test("Home Wi-Fi: none configured is a problem; home or not, ok and said; an unreadable Wi-Fi state is a problem")
    func network() async throws {
        let none = try TestPack("fay", policy: HomePolicy(ssids: [], source: .iw))
        let noneCheck = await none.worker.doctorNetworkCheck()
        #expect(noneCheck.level == .problem && noneCheck.action?.contains("sync.home_ssids") == true)

        let pack = try TestPack("fay2", policy: HomePolicy(ssids: ["HomeNet"], source: .iw))
        await pack.worker.networkChanged(
            WirelessState(associated: true, ssid: "HomeNet", detail: "iw on wlan0: connected"))
        let home = await pack.worker.doctorNetworkCheck()
        #expect(home.level == .ok && home.summary.contains("\"HomeNet\""), "\(home)")
        await pack.worker.networkChanged(
            WirelessState(associated: false, detail: "iw dev wlan0 link failed: No such device (-19)"))
        let broken = await pack.worker.doctorNetworkCheck()
        #expect(broken.level == .problem && broken.summary.contains("cannot read the Wi-Fi state"), "\(broken)")

        let wired = try TestPack("fay3")
        #expect(await wired.worker.doctorNetworkCheck().level == .ok)
    }
}
