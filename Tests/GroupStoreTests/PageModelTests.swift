import Foundation
import Testing

@testable import GroupStore

/// The pages without a database or a server: each page model rendered with its template and
/// compared with a stored page (golden), the same with markup and quotes in every string
/// (escaping), and every key a template uses found on its model.
@Suite("Page models and templates")
struct PageModelTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test("Each page model renders exactly as its stored golden page (HANDOFF_RECORD_GOLDEN=1 writes them)")
    func goldenPages() throws {
        let record = ProcessInfo.processInfo.environment["HANDOFF_RECORD_GOLDEN"] == "1"
        for fixture in try PageFixture.all({ $0 }) {
            let url = Self.golden.appendingPathComponent(fixture.name + ".html")
            let html = fixture.html
            if record {
                try html.write(to: url, atomically: true, encoding: .utf8)
                continue
            }
            guard let stored = try? String(contentsOf: url, encoding: .utf8) else {
                Issue.record("no golden page \(url.path): run with HANDOFF_RECORD_GOLDEN=1 and look at it")
                continue
            }
            if stored != html {
                let line = zip(
                    stored.split(separator: "\n", omittingEmptySubsequences: false),
                    html.split(separator: "\n", omittingEmptySubsequences: false)
                )
                .enumerated().first { $0.element.0 != $0.element.1 }
                Issue.record(
                    "\(fixture.name): differs from \(url.lastPathComponent) at line \((line?.offset ?? -1) + 1):\n  stored:   \(line?.element.0 ?? "")\n  rendered: \(line?.element.1 ?? "")"
                )
            }
        }
    }

    /// Markup, both quotes, an ampersand, and quotes that a combining mark joins into one
    /// `Character` (which swift-mustache's own escaping would let through).
    static let poison = "\"\u{301}'\u{301}<b>&amp;</b>\"'<\u{301}i>"

    @Test("With markup and quotes in every string of every page model, no tag or attribute is added and none breaks")
    func escaping() throws {
        let plain = try PageFixture.all({ $0 })
        let poisoned = try PageFixture.all({ $0 + Self.poison })
        for (clean, dirty) in zip(plain, poisoned) {
            // The fixture really put the poison in every string it holds.
            var unpoisoned: [String] = []
            Self.strings(dirty.model, path: dirty.name) { path, text in
                if !text.hasSuffix(Self.poison) { unpoisoned.append(path) }
            }
            #expect(unpoisoned.isEmpty, "strings the fixture did not put through t: \(unpoisoned)")

            let html = dirty.html
            #expect(Self.tags(html) == Self.tags(clean.html), "\(dirty.name): the poisoned page's tags differ")
            #expect(!html.contains("<b>") && !html.contains("<\u{301}i>") && !html.contains("\"\u{301}"))
            #expect(html.contains("&quot;\u{301}&#39;\u{301}&lt;b&gt;&amp;amp;&lt;/b&gt;&quot;&#39;&lt;\u{301}i&gt;"))
        }
    }

    @Test("Every key a template uses is on its page model, every section is filled by some fixture, nothing unescaped")
    func templateKeys() throws {
        let templates = PageTemplates.shared
        var checker = KeyChecker(sources: templates.sources)
        for fixture in try PageFixture.all({ $0 }) {
            checker.check(template: type(of: fixture.model).template, model: fixture.model, fixture: fixture.name)
        }
        #expect(checker.problems.isEmpty, "\(checker.problems.joined(separator: "\n"))")
        let unfilled = checker.sections.subtracting(checker.filled).sorted()
        #expect(unfilled.isEmpty, "sections no fixture fills: \(unfilled)")
        let unused = Set(templates.sources.keys).subtracting(checker.reached).sorted()
        #expect(unused.isEmpty, "templates no fixture reaches: \(unused)")
    }

    /// Every string in a value, with where it is.
    static func strings(_ value: Any, path: String, _ visit: (String, String) -> Void) {
        if let text = value as? String { return visit(path, text) }
        let mirror = Mirror(reflecting: value)
        for (index, child) in mirror.children.enumerated() {
            strings(child.value, path: path + "." + (child.label ?? String(index)), visit)
        }
    }

    /// The page's tags, each as its name and its attributes' names: a value that broke out of
    /// its text or attribute would add a tag or an attribute.
    static func tags(_ html: String) -> [String] {
        let bytes = Array(html.utf8)
        var out: [String] = []
        var i = 0
        func isNameByte(_ b: UInt8) -> Bool {
            !(b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D || b == 0x3E || b == 0x2F || b == 0x3D)
        }
        while i < bytes.count {
            guard bytes[i] == 0x3C, i + 1 < bytes.count,
                (bytes[i + 1] | 0x20) >= 0x61 && (bytes[i + 1] | 0x20) <= 0x7A || bytes[i + 1] == 0x2F
                    || bytes[i + 1] == 0x21
            else {
                i += 1
                continue
            }
            i += 1
            var start = i
            while i < bytes.count, isNameByte(bytes[i]) || (i == start && bytes[i] == 0x2F) { i += 1 }
            var tag = String(decoding: bytes[start..<i], as: UTF8.self)
            while i < bytes.count, bytes[i] != 0x3E {
                if [0x20, 0x0A, 0x09, 0x0D, 0x2F].contains(bytes[i]) {
                    i += 1
                    continue
                }
                start = i
                while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
                tag += " " + String(decoding: bytes[start..<i], as: UTF8.self)
                if i < bytes.count, bytes[i] == 0x3D {
                    i += 1
                    if i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 {
                        let quote = bytes[i]
                        i += 1
                        while i < bytes.count, bytes[i] != quote { i += 1 }
                        i += 1
                    } else {
                        while i < bytes.count, bytes[i] != 0x20, bytes[i] != 0x3E { i += 1 }
                    }
                }
            }
            out.append(tag)
            i += 1
        }
        return out
    }
}
