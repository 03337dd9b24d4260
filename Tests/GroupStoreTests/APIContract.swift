import Foundation
import GroupStore
import HTTPTypes
import Synchronization
import Testing

/// Checks every response the tests receive against the OpenAPI document the store serves: the
/// operation must be in it, the status must be documented for it, and a JSON body must match
/// the documented schema. A small validator of the JSON Schema the document uses: type (with
/// "null"), properties, required, additionalProperties false, items, enum, $ref, oneOf/anyOf,
/// minimum/maximum.
enum APIContract {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    nonisolated(unsafe) static let document: [String: Any] = {
        (try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))) as? [String: Any] ?? [:]
    }()

    static var paths: [String: [String: Any]] { document["paths"] as? [String: [String: Any]] ?? [:] }

    static let operationMethods: Set<String> = ["get", "put", "post", "patch", "delete", "head", "options", "trace"]

    /// The documented path template for a concrete path (`/v1/groups/7` → `/v1/groups/{group}`).
    static func template(for path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (String, Int)?
        for template in paths.keys {
            let pattern = template.split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == parts.count else { continue }
            var literal = 0
            var matches = true
            for (p, s) in zip(pattern, parts) {
                if p.hasPrefix("{") { continue }
                if p == s { literal += 1 } else { matches = false; break }
            }
            if matches, literal > (best?.1 ?? -1) { best = (template, literal) }
        }
        return best?.0
    }

    static func check(_ method: HTTPRequest.Method, _ uri: String, _ reply: Reply) throws {
        let path = String(uri.split(separator: "?", maxSplits: 1).first ?? "")
        guard let template = template(for: path),
            let operation = paths[template]?[method.rawValue.lowercased()] as? [String: Any]
        else {
            // Unknown routes answer 404 by design; a documented path asked with a method it does
            // not take answers 405 naming exactly the documented methods; anything else must be
            // documented.
            if reply.status == .notFound { return }
            if reply.status == .methodNotAllowed, let template = template(for: path) {
                let documented = (paths[template] ?? [:]).keys.filter(operationMethods.contains).map { $0.uppercased() }
                let allowed = (reply.headers[.allow] ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard Set(allowed) == Set(documented), reply.errorCode == "method_not_allowed" else {
                    throw Violation(
                        description:
                            "\(method) \(template) answered 405 with Allow \(allowed), documented \(documented.sorted())"
                    )
                }
                return
            }
            throw Violation(description: "\(method) \(path) is not in openapi.json")
        }
        RouteCoverage.reached(method, template)
        let responses = operation["responses"] as? [String: Any] ?? [:]
        guard let response = (responses[String(reply.status.code)] ?? responses["default"]) as? [String: Any] else {
            throw Violation(
                description: "\(method) \(template) answered \(reply.status.code), which openapi.json does not list")
        }
        let resolved = resolve(response)
        guard let content = resolved["content"] as? [String: Any] else {
            if !reply.body.isEmpty {
                throw Violation(
                    description: "\(method) \(template) \(reply.status.code) has a body but none is documented")
            }
            return
        }
        let type = reply.headers[.contentType] ?? ""
        guard let media = content.first(where: { type.hasPrefix($0.key) || $0.key == "*/*" }) else {
            throw Violation(
                description:
                    "\(method) \(template) \(reply.status.code) answered \(type), documented: \(content.keys.sorted())")
        }
        guard type.hasPrefix("application/json"), let schema = (media.value as? [String: Any])?["schema"] else {
            return
        }
        let value = try JSONDecoder().decode(J.self, from: reply.body)
        var problems: [String] = []
        validate(value, schema, at: "$", &problems)
        if !problems.isEmpty {
            throw Violation(
                description:
                    "\(method) \(template) \(reply.status.code) does not match openapi.json: \(problems.prefix(5).joined(separator: "; "))"
            )
        }
    }

    static func resolve(_ node: Any) -> [String: Any] {
        guard var object = node as? [String: Any] else { return [:] }
        while let ref = object["$ref"] as? String, ref.hasPrefix("#/") {
            var current: Any? = document
            for key in ref.dropFirst(2).split(separator: "/") { current = (current as? [String: Any])?[String(key)] }
            object = current as? [String: Any] ?? [:]
        }
        return object
    }

    /// A JSON value that keeps booleans, numbers and null apart.
    enum J: Decodable {
        case null, bool(Bool), number(Double), string(String), array([J]), object([String: J])
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let v = try? c.decode(Bool.self) {
                self = .bool(v)
            } else if let v = try? c.decode(Double.self) {
                self = .number(v)
            } else if let v = try? c.decode(String.self) {
                self = .string(v)
            } else if let v = try? c.decode([J].self) {
                self = .array(v)
            } else {
                self = .object(try c.decode([String: J].self))
            }
        }
        var text: String {
            switch self {
            case .null: "null"
            case .bool(let v): "\(v)"
            case .number(let v): v.rounded() == v && abs(v) < 1e15 ? "\(Int64(v))" : "\(v)"
            case .string(let v): v
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    static func validate(_ value: J, _ node: Any, at path: String, _ problems: inout [String]) {
        let schema = resolve(node)
        if let options = (schema["oneOf"] ?? schema["anyOf"]) as? [Any] {
            var matched = false
            for option in options {
                var sub: [String] = []
                validate(value, option, at: path, &sub)
                if sub.isEmpty { matched = true }
            }
            if !matched { problems.append("\(path) matches none of its alternatives") }
        }
        if let types = schema["type"] {
            let allowed = (types as? [String]) ?? [types as? String ?? ""]
            if !allowed.contains(where: { Self.is(value, $0) }) {
                problems.append("\(path) is \(value.text), not \(allowed.joined(separator: " or "))")
                return
            }
        }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { "\($0)" == value.text }) {
            problems.append("\(path) = \(value.text) is not one of \(choices)")
        }
        if case .number(let number) = value {
            if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, number < minimum {
                problems.append("\(path) = \(number) is below \(minimum)")
            }
            if let maximum = (schema["maximum"] as? NSNumber)?.doubleValue, number > maximum {
                problems.append("\(path) = \(number) is above \(maximum)")
            }
        }
        if case .object(let object) = value {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                problems.append("\(path).\(key) is missing")
            }
            for (key, item) in object {
                if let property = properties[key] {
                    validate(item, property, at: "\(path).\(key)", &problems)
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path).\(key) is not in the schema")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    validate(item, additional, at: "\(path).\(key)", &problems)
                }
            }
        }
        if case .array(let array) = value, let items = schema["items"] {
            for (i, item) in array.enumerated() { validate(item, items, at: "\(path)[\(i)]", &problems) }
        }
    }

    static func `is`(_ value: J, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool),
            ("number", .number):
            return true
        case ("integer", .number(let v)): return v.rounded() == v
        case ("null", _), ("object", _), ("array", _), ("string", _), ("boolean", _), ("number", _), ("integer", _):
            return false
        default: return true
        }
    }
}

/// Which documented routes the tests reached, on which engine. With HANDOFF_ROUTE_COVERAGE set
/// to a file, each first reach appends "ENGINE METHOD /path/{param}" to it; scripts/test then
/// fails (scripts/check-route-coverage) unless every route in openapi.json was reached over HTTP
/// on SQLite and on PostgreSQL.
enum RouteCoverage {
    private static let seen = Mutex<Set<String>>([])
    private static let path = ProcessInfo.processInfo.environment["HANDOFF_ROUTE_COVERAGE"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static func reached(_ method: HTTPRequest.Method, _ template: String) {
        guard let path, let backend = Backend.current else { return }
        let line = "\(backend.rawValue) \(method.rawValue) \(template)"
        let isNew = seen.withLock { $0.insert(line).inserted }
        guard isNew else { return }
        // O_APPEND: each line lands whole, whichever test process or thread writes it.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = Array((line + "\n").utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
