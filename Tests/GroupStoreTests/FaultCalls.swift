import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird
import HummingbirdTesting

/// Requests of the fault tests: like `call`, checked against openapi.json (where every operation
/// lists 503 and 507), and read whatever their content type.
extension TestClientProtocol {
    func faultCall(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: [UInt8]? = nil,
        contentType: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let contentType { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers.append(contentsOf: extra)
        let reply = try await execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }
        ) { response in
            let data = Data(buffer: response.body)
            let isJSON = response.headers[.contentType]?.hasPrefix("application/json") == true
            let object =
                isJSON && !data.isEmpty ? (try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]) : [:]
            return Reply(status: response.status, json: object, headers: response.headers, body: data)
        }
        try APIContract.check(method, uri, reply)
        return reply
    }

    /// An upload as `upload` sends it, through `faultCall`.
    func faultUpload(_ token: String, uuid: String, file: [UInt8]) async throws -> Reply {
        let (body, contentType) = FaultCalls.multipart(file)
        return try await faultCall(.put, "/v1/runs/\(uuid)", token: token, body: body, contentType: contentType)
    }
}

enum FaultCalls {
    /// A run's upload body: the summary, then the FIT file.
    static func multipart(_ file: [UInt8]) -> (body: [UInt8], contentType: String) {
        let boundary = "handoff-\(UUID().uuidString)"
        var body = Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"summary\"\r\nContent-Type: application/json\r\n\r\n{\"source\":\"test\"}\r\n"
                .utf8)
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.fit\"\r\nContent-Type: application/vnd.ant.fit\r\n\r\n"
                .utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    /// A FIT file of a run started at `start` plus `index` seconds (each a different file).
    static func run(_ start: WallInstant, _ index: Int, minutes: Int = 10) -> [UInt8] {
        RunFiles.fit(start: start.advanced(byNanoseconds: Int64(index) * 1_000_000_000), seconds: minutes * 60)
    }
}
