import GRDB
import HandoffModel
import PackStorage
import Testing

@Suite("Paired sensors in the journal")
struct PairedSensorTests {
    static let strap = PairedSensor(
        address: "F0:F0:F0:00:00:01", addressType: .public, kind: .heartRate, name: "Handoff HR",
        manufacturer: "Handoff Test", model: "HR-1", firmware: "1.0.0", serialNumber: "0001", location: "chest",
        batteryPercent: 87, pairedWallNanoseconds: 1_000)
    static let pod = PairedSensor(
        address: "C6:55:44:33:22:11", addressType: .random, kind: .footpod, name: "Handoff Footpod",
        pairedWallNanoseconds: 2_000)

    @Test("Pairing saves a sensor; listing returns them in pairing order with every field")
    func saveAndList() throws {
        let db = try PackDatabase.inMemory()
        try db.savePairedSensor(Self.pod)
        try db.savePairedSensor(Self.strap)
        #expect(try db.pairedSensors() == [Self.strap, Self.pod])
    }

    @Test("Pairing again replaces what was known; notes update last seen and battery only when given")
    func repairAndUpdate() throws {
        let db = try PackDatabase.inMemory()
        try db.savePairedSensor(Self.strap)
        var again = Self.strap
        again.firmware = "1.1.0"
        try db.savePairedSensor(again)
        try db.updatePairedSensor(address: again.address, lastSeenWall: 5_000, batteryPercent: nil)
        try db.updatePairedSensor(address: again.address, lastSeenWall: nil, batteryPercent: 80)
        let stored = try #require(try db.pairedSensors().first)
        #expect(stored.firmware == "1.1.0")
        #expect(stored.lastSeenWallNanoseconds == 5_000)
        #expect(stored.batteryPercent == 80)
        #expect(try db.pairedSensors().count == 1)
    }

    @Test("Forgetting removes the sensor and says whether it was paired; a battery over 100 % is refused")
    func forgetAndChecks() throws {
        let db = try PackDatabase.inMemory()
        try db.savePairedSensor(Self.strap)
        #expect(try db.forgetPairedSensor(address: Self.strap.address))
        #expect(try !db.forgetPairedSensor(address: Self.strap.address))
        #expect(try db.pairedSensors().isEmpty)
        var broken = Self.pod
        broken.batteryPercent = 140
        let error = #expect(throws: DatabaseError.self) { try db.savePairedSensor(broken) }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
        #expect(error?.message == "CHECK constraint failed: battery_percent BETWEEN 0 AND 100")
    }

    static let hxm = PairedSensor(
        address: "00:07:80:12:34:56", addressType: .bredr, kind: .heartRate, name: "HXM026001", manufacturer: "Zephyr",
        model: "HxM", batteryPercent: 90, pairedWallNanoseconds: 3_000, profile: "zephyr-hxm", pin: "1234")

    @Test("A classic strap keeps its protocol, channel and PIN; classic addresses need a known protocol")
    func classicStrap() throws {
        let db = try PackDatabase.inMemory()
        var polar = Self.hxm
        polar.address = "00:22:D0:AB:CD:EF"
        polar.profile = "polar-wearlink"
        polar.rfcommChannel = 1
        polar.pin = "0000"
        try db.savePairedSensor(Self.hxm)
        try db.savePairedSensor(polar)
        try db.savePairedSensor(Self.strap)
        #expect(try db.pairedSensors() == [Self.strap, Self.hxm, polar])
        #expect(Self.hxm.descriptor.transport == .rfcomm && Self.strap.descriptor.transport == .ble)
        var noProfile = Self.hxm
        noProfile.profile = nil
        var unknown = Self.hxm
        unknown.profile = "suunto"
        var badChannel = polar
        badChannel.rfcommChannel = 31
        var bleWithProfile = Self.strap
        bleWithProfile.profile = "zephyr-hxm"
        // Each is refused by the journal's own CHECK, the one that names what is wrong.
        let pairing = "(address_type = 'bredr') = (profile IS NOT NULL)"
        let refusals = [
            (noProfile, pairing), (unknown, "profile IN ('polar-wearlink', 'zephyr-hxm')"),
            (badChannel, "rfcomm_channel BETWEEN 1 AND 30"), (bleWithProfile, pairing),
        ]
        for (broken, check) in refusals {
            let error = #expect(throws: DatabaseError.self, "\(broken.profile ?? "nil") \(broken.addressType)") {
                try db.savePairedSensor(broken)
            }
            #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_CHECK, "\(String(describing: error))")
            #expect(error?.message == "CHECK constraint failed: \(check)")
        }
    }
}
