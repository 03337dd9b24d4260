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
        guard let text = library.render(model, withTemplate: Model.template) else {
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

/// HTML escaping by Unicode scalar, as `html(_:)`.
private struct ScalarHTML: MustacheContentType {
    func escapeText(_ text: String) -> String { html(text) }
}

/// What every page model has: the frame its layout draws, and the template that draws the rest.
protocol PageModel: Sendable {
    static var template: String { get }
    var frame: Frame { get }
}
