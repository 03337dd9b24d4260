import HTTPTypes
import Hummingbird
import NIOCore

/// Who a request comes from, for the per-address limits: the peer's IP address, or, when the
/// peer is the trusted reverse proxy (`--trusted-proxy`), the last address in the
/// `X-Forwarded-For` it appended. An IPv6 client counts by its /64, which one host usually holds
/// whole.
public enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The key the limits count under: "ipv4 address" or "ipv6 /64 prefix", or "unknown".
    static func key(peer: SocketAddress?, headers: HTTPFields, trustedProxy: String?) -> String {
        guard let peerIP = peer?.ipAddress.map(unmapped) else { return "unknown" }
        if let trustedProxy, peerIP == unmapped(trustedProxy) {
            let hops = headers[values: forwardedFor].joined(separator: ",").split(separator: ",")
            if let last = hops.last.map({ String($0.filter { $0 != " " && $0 != "\t" }) }),
                let key = key(ip: last)
            {
                return key
            }
        }
        return key(ip: peerIP) ?? "unknown"
    }

    /// The counting key of one textual IP address; nil when it is not one.
    static func key(ip text: String) -> String? {
        guard text.utf8.count <= 45, let address = try? SocketAddress(ipAddress: unmapped(text), port: 0) else {
            return nil
        }
        switch address {
        case .v4: return address.ipAddress
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0.prefix(8)) }
            let groups = stride(from: 0, to: 8, by: 2).map {
                String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
            }
            return groups.joined(separator: ":") + "::/64"
        default: return nil
        }
    }

    /// Whether `text` is an IPv4 or IPv6 address (a trusted proxy is named by one).
    public static func isIPAddress(_ text: String) -> Bool { key(ip: text) != nil }

    /// An IPv4 address seen through IPv6 (`::ffff:192.0.2.1`) as itself.
    static func unmapped(_ text: String) -> String {
        text.lowercased().hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }
}

extension Services {
    /// The limits' key for the client of `request`.
    func clientAddress(_ request: Request, _ context: StoreContext) -> String {
        ClientAddress.key(
            peer: context.remoteAddress, headers: request.headers, trustedProxy: configuration.network.trustedProxy)
    }
}
