import Foundation

@testable import GroupStore

/// Walks templates against page models as Mustache would render them, and notes every key that
/// the model does not have, every unescaped value not on `PageTemplates.unescaped`, and which
/// sections some model filled (a section whose value is nil or empty in every fixture is never
/// checked, so it is reported).
struct KeyChecker {
    let sources: [String: String]
    var problems: [String] = []
    /// Every section of every template reached, as "template:offset name".
    var sections: Set<String> = []
    /// The sections whose content some fixture walked.
    var filled: Set<String> = []
    var reached: Set<String> = []
    private var parsed: [String: [Token]] = [:]

    init(sources: [String: String]) {
        self.sources = sources
        for (name, text) in sources {
            do {
                parsed[name] = try Self.parse(text, template: name)
            } catch {
                problems.append("\(name): \(error)")
            }
        }
    }

    indirect enum Token {
        case variable(String, escaped: Bool)
        case section(String, transform: String?, inverted: Bool, body: [Token], id: String)
        case partial(String)
        case parent(String, blocks: [String: [Token]])
        case block(String, body: [Token])
    }

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    mutating func check(template: String, model: Any, fixture: String) {
        walk(template, stack: [model], blocks: [:], fixture: fixture)
    }

    private mutating func walk(_ template: String, stack: [Any], blocks: [String: [Token]], fixture: String) {
        reached.insert(template)
        guard let tokens = parsed[template] else { return problems.append("\(fixture): no template \(template)") }
        walk(tokens, in: template, stack: stack, blocks: blocks, fixture: fixture)
    }

    private mutating func walk(
        _ tokens: [Token], in template: String, stack: [Any], blocks: [String: [Token]], fixture: String
    ) {
        for token in tokens {
            switch token {
            case .variable(let name, let escaped):
                if !escaped, !PageTemplates.unescaped.contains(name) {
                    problems.append("\(template): {{{\(name)}}} is unescaped and not on PageTemplates.unescaped")
                }
                if case .missing = resolve(name, stack) {
                    problems.append("\(template) (\(fixture)): no key \(name) on \(Self.describe(stack))")
                }
            case .section(let name, let transform, let inverted, let body, let id):
                sections.insert(id)
                let value: Any?
                switch resolve(name, stack) {
                case .missing:
                    problems.append("\(template) (\(fixture)): no section key \(name) on \(Self.describe(stack))")
                    continue
                case .found(let found): value = found
                }
                if transform != nil || inverted {
                    // A transform ("empty") gives a flag; an inverted section renders in place.
                    filled.insert(id)
                    walk(body, in: template, stack: stack, blocks: blocks, fixture: fixture)
                } else if let items = value as? [Any] {
                    for item in items {
                        filled.insert(id)
                        walk(body, in: template, stack: stack + [item], blocks: blocks, fixture: fixture)
                    }
                } else if value is Bool {
                    filled.insert(id)
                    walk(body, in: template, stack: stack, blocks: blocks, fixture: fixture)
                } else if let value {
                    filled.insert(id)
                    walk(body, in: template, stack: stack + [value], blocks: blocks, fixture: fixture)
                }
            case .partial(let name):
                walk(name, stack: stack, blocks: blocks, fixture: fixture)
            case .parent(let name, let overrides):
                walk(name, stack: stack, blocks: blocks.merging(overrides) { old, _ in old }, fixture: fixture)
            case .block(let name, let body):
                walk(blocks[name] ?? body, in: template, stack: stack, blocks: blocks, fixture: fixture)
            }
        }
    }

    enum Resolved {
        case missing
        case found(Any?)
    }

    /// Mustache's look-up: the first name in the nearest context that has it, then down.
    private func resolve(_ name: String, _ stack: [Any]) -> Resolved {
        if name == "." { return .found(stack.last) }
        let parts = name.split(separator: ".").map(String.init)
        guard let first = parts.first else { return .missing }
        for object in stack.reversed() {
            guard case .found(var value) = Self.child(first, of: object) else { continue }
            for part in parts.dropFirst() {
                guard let current = value, case .found(let next) = Self.child(part, of: current) else {
                    return .missing
                }
                value = next
            }
            return .found(value)
        }
        return .missing
    }

    private static func child(_ name: String, of object: Any) -> Resolved {
        guard let match = Mirror(reflecting: object).children.first(where: { $0.label == name }) else {
            return .missing
        }
        let mirror = Mirror(reflecting: match.value)
        if mirror.displayStyle == .optional { return .found(mirror.children.first?.value) }
        return .found(match.value)
    }

    private static func describe(_ stack: [Any]) -> String {
        stack.map { String(describing: type(of: $0)) }.joined(separator: " > ")
    }

    /// The template's tags as a tree. Comments and pragmas are dropped; text is not kept.
    static func parse(_ text: String, template: String) throws -> [Token] {
        var rest = Substring(text)
        var offset = 0
        func next() throws -> (kind: Character?, name: String, escaped: Bool, at: Int)? {
            guard let open = rest.range(of: "{{") else { return nil }
            let at = offset + rest.distance(from: rest.startIndex, to: open.lowerBound)
            let triple = rest[open.upperBound...].hasPrefix("{")
            let close = triple ? "}}}" : "}}"
            let start = triple ? rest.index(after: open.upperBound) : open.upperBound
            guard let end = rest[start...].range(of: close) else {
                throw ParseError(description: "\(template): an unclosed tag at \(at)")
            }
            var inside = rest[start..<end.lowerBound].trimmingCharacters(in: .whitespaces)
            offset += rest.distance(from: rest.startIndex, to: end.upperBound)
            rest = rest[end.upperBound...]
            if triple { return (nil, inside, false, at) }
            guard let first = inside.first else { return (nil, "", true, at) }
            if "#^/><$!%&".contains(first) {
                inside = String(inside.dropFirst()).trimmingCharacters(in: .whitespaces)
                return (first, inside, first != "&", at)
            }
            return (nil, inside, true, at)
        }
        func list(until end: String?) throws -> [Token] {
            var tokens: [Token] = []
            while let tag = try next() {
                switch tag.kind {
                case nil, "&": tokens.append(.variable(tag.name, escaped: tag.escaped))
                case "#", "^":
                    let body = try list(until: tag.name)
                    var name = tag.name
                    var transform: String?
                    if let paren = name.firstIndex(of: "("), name.hasSuffix(")") {
                        transform = String(name[..<paren])
                        name = String(name[name.index(after: paren)..<name.index(before: name.endIndex)])
                    }
                    tokens.append(
                        .section(
                            name, transform: transform, inverted: tag.kind == "^", body: body,
                            id: "\(template):\(tag.at) \(tag.name)"))
                case "/":
                    guard tag.name == end else {
                        throw ParseError(description: "\(template): {{/\(tag.name)}} closes \(end ?? "nothing")")
                    }
                    return tokens
                case ">": tokens.append(.partial(tag.name))
                case "<":
                    var blocks: [String: [Token]] = [:]
                    for token in try list(until: tag.name) {
                        if case .block(let name, let body) = token { blocks[name] = body }
                    }
                    tokens.append(.parent(tag.name, blocks: blocks))
                case "$": tokens.append(.block(tag.name, body: try list(until: tag.name)))
                default: break  // a comment or a pragma
                }
            }
            if let end { throw ParseError(description: "\(template): {{#\(end)}} is never closed") }
            return tokens
        }
        return try list(until: nil)
    }
}
