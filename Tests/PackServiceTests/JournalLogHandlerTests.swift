import Testing

@testable import PackService

@Suite("The journal's native protocol")
struct JournalLogHandlerTests {
    @Test("Metadata keys become journal field names (systemd.journal-fields(7) rules)")
    func fieldNames() {
        #expect(JournalLogHandler.fieldName("sensor.id") == "SENSOR_ID")
        #expect(JournalLogHandler.fieldName("session.uuid") == "SESSION_UUID")
        #expect(JournalLogHandler.fieldName("group.id") == "GROUP_ID")
        #expect(JournalLogHandler.fieldName("_hidden") == "HIDDEN")
        #expect(JournalLogHandler.fieldName("3d-fix") == "D_FIX")
        #expect(JournalLogHandler.fieldName("...") == "FIELD")
        #expect(JournalLogHandler.fieldName(String(repeating: "a", count: 100)).count == 64)
    }

    @Test("A value with a newline is sent length-prefixed (64-bit little-endian), others as KEY=value")
    func encoding() {
        var datagram: [UInt8] = []
        JournalLogHandler.append("MESSAGE", "one", to: &datagram)
        JournalLogHandler.append("ERROR", "a\nb", to: &datagram)
        #expect(datagram == Array("MESSAGE=one\nERROR\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0] + Array("a\nb\n".utf8))
    }
}
