import Foundation
import HandoffModel

/// Linking in progress: what `link_status` shows, and the task polling the store.
struct LinkFlow {
    var status: LinkStatus
    var task: Task<Void, Never>?
}

/// Linking the pack to a store (RFC 8628 from the device's side) and unlinking it.
extension SyncWorker {
    /// Asks the store for a code and starts polling for the person to enter it. Returns at once
    /// with the code; `linkStatus()` follows the rest.
    public func beginLink(store: String, name: String?) async throws(SyncError) -> LinkStatus {
        let url: URL
        do { url = try StoreClient.url(store) } catch {
            throw SyncError(code: error.code, message: error.message)
        }
        if let link {
            throw SyncError(
                code: "already_linked",
                message:
                    "this pack is linked to \(link.store)\(link.username.map { " as \($0)" } ?? ""): `handoff unlink` first"
            )
        }
        linking?.task?.cancel()
        linking = nil
        // A person is waiting for the code: give the store its time, whatever the upload time-out.
        let client = StoreClient(base: url, timeoutSeconds: 20)
        let deviceName = name?.isEmpty == false ? name! : configuration.deviceName
        let code: StoreClient.DeviceCode
        do { code = try await client.requestDeviceCode(name: deviceName) } catch {
            let store = url.absoluteString
            let check: String
            switch error.cause {
            case .unreachable, .cancelled:
                check =
                    "\(error.what). Check the address given to --store, that the store is running, and that this pack is online (`handoff doctor`)"
            case .storeFailed, .busy:
                check = "\(error.what). Tell the store's operator, or try `handoff link` again later"
            default: check = error.message
            }
            throw SyncError(
                code: error.code,
                message: "could not link to \(store): \(check); the pack is not linked")
        }
        let expires = now().advanced(byNanoseconds: Int64(code.expiresIn) * nanosecondsPerSecond)
        var status = LinkStatus(
            .waiting, "on a phone or computer, open \(code.verificationURI) and enter the code \(code.userCode)")
        status.store = url.absoluteString
        status.code = LinkStatus.Code(
            userCode: code.userCode, verificationURI: code.verificationURI,
            verificationURIComplete: code.verificationURIComplete, expires: expires)
        linking = LinkFlow(status: status)
        linking?.task = Task { await self.poll(client, code: code, deviceName: deviceName, expires: expires) }
        logger.info("Linking to \(url.absoluteString): waiting for the code to be entered")
        return status
    }

    func poll(_ client: StoreClient, code: StoreClient.DeviceCode, deviceName: String, expires: WallInstant) async {
        var interval = code.interval
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            if Task.isCancelled { return }
            if now() > expires {
                endLink(.expired, "the code expired before it was entered: run `handoff link` again")
                return
            }
            do {
                switch try await client.pollDeviceToken(deviceCode: code.deviceCode) {
                case .pending: continue
                case .slowDown: interval += 5
                case .expired:
                    endLink(.expired, "the code expired before it was entered: run `handoff link` again")
                    return
                case .denied:
                    endLink(.denied, "the code was refused on the store: run `handoff link` to try again")
                    return
                case .linked(let token, let username):
                    linked(
                        StoreLink(
                            store: client.base.absoluteString, token: token, username: username,
                            deviceName: deviceName, linkedAt: CivilTime(now()).iso8601()))
                    return
                }
            } catch {
                if error.action == .retry {
                    linking?.status.message =
                        "still waiting for the code \(code.userCode); the store did not answer the last poll (\(error.message))"
                } else {
                    endLink(.failed, "linking failed: \(error.message)")
                    return
                }
            }
        }
    }

    func linked(_ newLink: StoreLink) {
        do { try newLink.save(path: configuration.linkPath) } catch {
            endLink(.failed, "linked, but \(error.message): the pack cannot keep its token; fix that and link again")
            return
        }
        connection.set(newLink)
        health.unlinkedByStore = nil
        health.forgiveFailures()
        linking = LinkFlow(status: Self.linkedStatus(connection.linked))
        logger.notice("Linked to \(newLink.store)", metadata: ["username": "\(newLink.username ?? "?")"])
        wakeup.poke()
    }

    func endLink(_ phase: LinkStatus.Phase, _ message: String) {
        linking?.status.phase = phase
        linking?.status.message = message
        logger.notice("Linking ended: \(message)")
    }

    public func linkStatus() -> LinkStatus {
        if let linking, linking.status.phase != .linked { return linking.status }
        guard let linked = connection.linked else { return LinkStatus(.unlinked, Self.notLinked) }
        if let reason = health.unlinkedByStore { return LinkStatus(.unlinkedByStore, reason, store: linked) }
        return Self.linkedStatus(linked)
    }

    static func linkedStatus(_ linked: LinkedStore?) -> LinkStatus {
        let who = linked?.username.map { " as \($0)" } ?? ""
        return LinkStatus(.linked, "linked to \(linked?.store ?? "?")\(who)", store: linked)
    }

    /// Forgets the store: tells it (so the pack leaves the account's devices), then removes the
    /// token. Runs stay on the pack, and queued ones upload again after the next link.
    public func unlink() async -> LinkStatus {
        linking?.task?.cancel()
        linking = nil
        guard let link else {
            return LinkStatus(.unlinked, "this pack was not linked")
        }
        var message = "unlinked from \(link.store); runs stay on the pack"
        if let client {
            do { try await client.signOut() } catch {
                message +=
                    ". The store could not be told (\(error.message)): remove the pack under your account's devices"
            }
        }
        StoreLink.remove(path: configuration.linkPath)
        connection.set(nil)
        health.unlinkedByStore = nil
        passes.current = nil
        logger.notice("Unlinked from \(link.store)")
        return LinkStatus(.unlinked, message)
    }
}
