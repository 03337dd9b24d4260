import ActivityFormats
import Foundation
import PropertyBased
import TestSupport
import Testing

@Suite("FIT container: header, length and CRC")
struct FITContainerTests {
    @Test("The CRC is CRC-16/ARC: the catalogue's check value for \"123456789\" is 0xBB3D")
    func crcCheckValue() {
        #expect(FIT.crc16(Array("123456789".utf8)) == 0xBB3D)
        #expect(FIT.crc16([]) == 0)
    }

    @Test(
        "Real devices' FIT files pass: header, declared length and file CRC",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"),
        arguments: ["Activity.fit", "HrmPluginTestActivity.fit", "activity-small-fenix2-run.fit"])
    func realFiles(name: String) throws {
        let bytes = [UInt8](try Fixtures.data("files/fit/" + name))
        let (header, records) = try FIT.checkContainer(bytes)
        #expect(header.size == 12 || header.size == 14)
        #expect(records.count == header.dataSize && records.upperBound + 2 <= bytes.count)
        #expect(header.dataSize > 100)
    }

    @Test(
        "The invalid fixtures are rejected with the problem named: a wrong file CRC, a file cut short",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func invalidFiles() throws {
        let crc = [UInt8](try Fixtures.data("files/fit/invalid/activity-filecrc.fit"))
        #expect {
            try FIT.checkContainer(crc)
        } throws: { error in
            if case .badFileCRC = error as? FIT.ContainerError { return "\(error)".contains("corrupt") }
            return false
        }
        let eof = [UInt8](try Fixtures.data("files/fit/invalid/activity-unexpected-eof.fit"))
        #expect {
            try FIT.checkContainer(eof)
        } throws: { error in
            if case .truncated = error as? FIT.ContainerError { return "\(error)".contains("truncated") }
            return false
        }
    }

    @Test("Short, foreign and damaged headers give typed errors")
    func badHeaders() throws {
        #expect(throws: FIT.ContainerError.headerTooShort(have: 0, needed: 12)) { try FIT.header([]) }
        #expect(throws: FIT.ContainerError.badHeaderSize(80)) { try FIT.header(Array("PK\u{3}\u{4}".utf8)) }
        #expect(throws: FIT.ContainerError.headerTooShort(have: 5, needed: 14)) { try FIT.header([14, 16, 0, 0, 0]) }
        var header: [UInt8] = [14, 0x10, 0x54, 0x08, 0, 0, 0, 0] + Array(".FIT".utf8)
        let crc = FIT.crc16(header)
        #expect(throws: FIT.ContainerError.notFIT) {
            try FIT.header([14, 0x10, 0, 0, 0, 0, 0, 0] + Array(".GPX".utf8) + [0, 0])
        }
        header += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        #expect(try FIT.header(header).profileVersion == 2132)
        var damaged = header
        damaged[2] ^= 1
        #expect(throws: FIT.ContainerError.badHeaderCRC(stored: crc, computed: FIT.crc16(damaged[0..<12]))) {
            try FIT.header(damaged)
        }
        // An empty file: header, no records, the CRC of the header.
        let whole = header + [UInt8(FIT.crc16(header) & 0xFF), UInt8(FIT.crc16(header) >> 8)]
        #expect(try FIT.checkContainer(whole).records.isEmpty)
    }

    @Test("A file CRC of zero is checked like any other: zero means \"not computed\" only in the header")
    func zeroFileCRC() throws {
        // A file cut short and padded with zeros ends in a zero "CRC" (the profile lets only the
        // header's CRC be 0, meaning not computed).
        let header: [UInt8] = [12, 0x10, 0x54, 0x08, 3, 0, 0, 0] + Array(".FIT".utf8)
        let records: [UInt8] = [0x40, 0, 0]
        let file = header + records + [0, 0]
        let computed = FIT.crc16(header + records)
        #expect(computed != 0)
        #expect(throws: FIT.ContainerError.badFileCRC(stored: 0, computed: computed)) { try FIT.checkContainer(file) }
        let good = header + records + [UInt8(computed & 0xFF), UInt8(computed >> 8)]
        #expect(try FIT.checkContainer(good).records == 12..<15)
    }

    @Test("Random bytes, and real headers with random sizes, never trap the container check")
    func randomBytes() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...64)) { bytes in
            _ = try? FIT.checkContainer(bytes)
            var framed: [UInt8] = [12, 0x10, 0x54, 0x08] + Array(bytes.prefix(4)) + Array(".FIT".utf8) + bytes
            framed[4] = bytes.first ?? 0
            _ = try? FIT.checkContainer(framed)
        }
    }
}
