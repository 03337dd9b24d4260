import Foundation
import Mustache

/// The store's pages as Mustache templates (Resources/templates, one file a template), which
/// escape every value by default. A page is a page model (a `PageModel`: plain strings, numbers,
/// flags and lists of them, never a storage type) rendered with its template inside `layout`.
///
/// swift-mustache's own HTML escaping works on `Character`s, so a quote followed by a combining
/// mark (`"\u{301}`) is one character that is not a quote and would pass raw, ending an attribute.
/// Every template is therefore loaded with a content type of our own first, which escapes by
/// Unicode scalar (`html(_:)`). Partials and parents set their own content type as they start,
/// which is why the pragma goes at the start of every file, not just the page's.
struct PageTemplates: Sendable {
    static let contentType = "HANDOFF_HTML"
    /// Names a template may print unescaped with `{{{…}}}` or `{{&…}}`. None: every value is text,
    /// SVG included (its coordinates are numbers in attributes).
    static let unescaped: Set<String> = []

    let library: MustacheLibrary
    /// Each template's source as written, by name, for the test that checks the keys they use.
    let sources: [String: String]

    /// The templates shipped with the store.
    static let shared: PageTemplates = {
        guard let directory = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            preconditionFailure("the store's templates are missing from its bundle: reinstall handoff-store")
        }
        do {
            return try PageTemplates(directory: directory)
        } catch {
            preconditionFailure("the store's templates do not parse: \(error)")
        }
    }()

    init(directory: URL) throws {
        MustacheContentTypes.register(ScalarHTML(), named: Self.contentType)
        var library = MustacheLibrary()
        var sources: [String: String] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "mustache" {
            let name = file.deletingPathExtension().lastPathComponent
            // A template ends with the file's last line break, which would add a blank line.
            var text = try String(contentsOf: file, encoding: .utf8)
            if text.hasSuffix("\n") { text.removeLast() }
            sources[name] = text
            do {
                try library.register("{{%CONTENT_TYPE:\(Self.contentType)}}" + text, named: name)
            } catch {
                throw TemplateError(name: name, error: error)
            }
        }
        self.library = library
        self.sources = sources
    }

    func render<Model: PageModel>(_ model: Model) -> String {
        guard let text = library.render(MustacheTree.of(model) ?? [:], withTemplate: Model.template) else {
            preconditionFailure("no template named \(Model.template)")
        }
        return text
    }

    struct TemplateError: Error, CustomStringConvertible {
        let name: String
        let error: any Error
        var description: String { "\(name).mustache: \(error)" }
    }
}

/// A page model as dictionaries and arrays, made once before rendering.
///
/// swift-mustache finds each name a template uses by reflection: a `Mirror` made and searched for
/// every lookup, at every level of the context stack it climbs. The feed's 25 items of some 20
/// names each cost thousands of them, most of the feed page's time (a profile at issue 33: its
/// time went to the runtime's metadata and field lookups). Dictionaries are read by key instead.
/// A nil is left out, which renders the same: swift-mustache treats a nil as not found and looks
/// further up the stack. The golden pages show every page renders byte for byte as before.
enum MustacheTree {
    static func of(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional?:
            return mirror.children.first.flatMap { of($0.value) }
        case .struct?, .class?:
            if value is MustacheLambda || value is MustacheParent { return value }
            var fields: [String: Any] = [:]
            for child in mirror.children {
                if let label = child.label, let converted = of(child.value) { fields[label] = converted }
            }
            return fields
        case .collection?:
            return mirror.children.compactMap { of($0.value) }
        case .dictionary?:
            guard let dictionary = value as? [String: Any] else { return value }
            return dictionary.compactMapValues { of($0) }
        default:
            return value
        }
    }
}

/// HTML escaping by Unicode scalar, as `html(_:)`.
private struct ScalarHTML: MustacheContentType {
    func escapeText(_ text: String) -> String { html(text) }
}

/// What every page model has: the frame its layout draws, and the template that draws the rest.
protocol PageModel: Sendable {
    static var template: String { get }
    var frame: Frame { get }
}
