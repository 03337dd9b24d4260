import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection that has not sent a whole request head within `timeout` of connecting
/// (issue 27: 300 half-sent requests held 300 connections). The timer is armed when the
/// connection becomes active and cancelled by the request's head; a connection kept alive after
/// its response is Hummingbird's `idleTimeout`'s to close. It sits after the HTTP/1 decoder
/// (Hummingbird's `additionalChannelHandlers`), so it sees request parts, not bytes.
final class HeaderTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    private var headSeen = false

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancel() }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headSeen = true
            cancel()
        }
        context.fireChannelRead(data)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard timer == nil, !headSeen else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.timer = nil
            context.close(promise: nil)
        }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension HeaderTimeoutHandler: Sendable {}
