import BlueZ
import GATT
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A client on the scripted server's other end.
func makeClient(_ server: ScriptedATTServer, timeout: Double = 30, mtu: UInt16 = 247) -> GATTClient {
    GATTClient(
        bearer: SocketATTBearer(adopting: server.clientFD), transactionTimeout: timeout, preferredMTU: mtu,
        now: monotonicSeconds)
}
