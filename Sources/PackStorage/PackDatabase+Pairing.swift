import GRDB
import HandoffModel

extension PackDatabase {
    /// Remembers a paired sensor, replacing what was known of it (pairing again refreshes it).
    public func savePairedSensor(_ sensor: PairedSensor) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO paired_sensor (address, address_type, kind, name, manufacturer, model,
                        firmware, serial_number, location, battery_percent, paired_wall_ns, last_seen_wall_ns,
                        profile, rfcomm_channel, pin)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    sensor.address, sensor.addressType.rawValue, sensor.kind.rawValue, sensor.name, sensor.manufacturer,
                    sensor.model, sensor.firmware, sensor.serialNumber, sensor.location, sensor.batteryPercent,
                    sensor.pairedWallNanoseconds, sensor.lastSeenWallNanoseconds, sensor.profile,
                    sensor.rfcommChannel, sensor.pin,
                ])
        }
        try registerSensors([sensor.descriptor])
    }

    /// The paired sensors, in the order they were paired.
    public func pairedSensors() throws -> [PairedSensor] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM paired_sensor ORDER BY paired_wall_ns, address").map { row in
                PairedSensor(
                    address: row["address"], addressType: SensorAddressType(rawValue: row["address_type"]) ?? .public,
                    kind: SensorKind(rawValue: row["kind"]),
                    name: row["name"], manufacturer: row["manufacturer"], model: row["model"],
                    firmware: row["firmware"],
                    serialNumber: row["serial_number"], location: row["location"],
                    batteryPercent: row["battery_percent"], pairedWallNanoseconds: row["paired_wall_ns"],
                    lastSeenWallNanoseconds: row["last_seen_wall_ns"], profile: row["profile"],
                    rfcommChannel: row["rfcomm_channel"], pin: row["pin"])
            }
        }
    }

    /// Forgets a paired sensor; `false` when it was not paired. Runs that used it keep its
    /// sensor row.
    @discardableResult
    public func forgetPairedSensor(address: String) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM paired_sensor WHERE address = ?", arguments: [address])
            return db.changesCount > 0
        }
    }

    /// Notes what a paired sensor last told the pack: when it was heard, and its battery.
    public func updatePairedSensor(address: String, lastSeenWall: Int64?, batteryPercent: Int?) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE paired_sensor SET last_seen_wall_ns = coalesce(?, last_seen_wall_ns),
                        battery_percent = coalesce(?, battery_percent) WHERE address = ?
                    """,
                arguments: [lastSeenWall, batteryPercent, address])
        }
    }
}
