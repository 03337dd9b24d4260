import Foundation
import PackControl
import PackSystem
import TestSupport
import Testing

/// The control socket lets whoever may connect start, stop and delete runs: its file must never
/// be more open than asked, not even for the instant between `bind` and `chmod` (issue 27, 12).
@Suite("The control socket is born with its permissions")
struct ControlSocketPermissionTests {
    @Test("Right after bind, under a umask of 0, the socket file already has only the mode asked for")
    func bornWithMode() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/control.sock"
        let previous = umask(0)
        defer { umask(previous) }
        var modeAfterBind: mode_t?
        let listener = try UnixListener(path: path, mode: 0o600) { bound in
            var info = stat()
            if lstat(bound, &info) == 0 { modeAfterBind = info.st_mode & 0o777 }
        }
        defer { listener.close() }
        #expect(modeAfterBind == 0o600, "mode right after bind: \(String(modeAfterBind ?? 0, radix: 8))")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(umask(0) == 0, "the process's umask is restored")
    }
}
