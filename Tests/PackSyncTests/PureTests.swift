import ActivityFormats
import Foundation
import HandoffModel
import PackSync
import PackSystem
import Testing

/// The parts of syncing that are arithmetic and text: backoff, privacy zones, what wpa_supplicant
/// and iw print.
struct BackoffTests {
    @Test("Backoff doubles up to its cap, jittered within the upper half, and honours a longer Retry-After")
    func doublesWithJitter() {
        let backoff = Backoff(minimumSeconds: 2, maximumSeconds: 60)
        var random = SystemRandomNumberGenerator()
        for failures in 1...12 {
            let ceiling = min(60, 2 * pow(2, Double(failures - 1)))
            for _ in 0..<200 {
                let delay = backoff.delay(afterFailures: failures, using: &random)
                #expect(delay >= ceiling / 2 && delay <= ceiling, "failure \(failures): \(delay)")
            }
        }
        // Jitter: two packs failing together do not retry together.
        let delays = Set((0..<50).map { _ in backoff.delay(afterFailures: 5, using: &random) })
        #expect(delays.count > 40)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 30, using: &random) == 30)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 3600, using: &random) == 60)
    }

    /// A store's Retry-After is outside data, and the worker turns each delay into nanoseconds
    /// (`Int64(delay * 1e9)`, which traps past 292 years): no header, and no Backoff however
    /// built, may give a delay that is not finite and bounded.
    @Test("A hostile Retry-After (inf, nan, 1e300, negative) or a huge configured cap gives a bounded delay")
    func hostileRetryAfter() {
        var random = SystemRandomNumberGenerator()
        let backoff = Backoff(minimumSeconds: 2, maximumSeconds: 60)
        for hostile in [Double.infinity, -.infinity, .nan, 1e300, -5, 9.3e9] {
            let delay = backoff.delay(afterFailures: 3, retryAfter: hostile, using: &random)
            #expect(delay.isFinite && delay >= 4 && delay <= 60, "Retry-After \(hostile): \(delay)")
        }
        for (minimum, maximum) in [(1.0, 1e300), (.nan, .infinity), (-3.0, .nan), (1e300, 1.0)] {
            let huge = Backoff(minimumSeconds: minimum, maximumSeconds: maximum)
            for failures in [1, 64, Int.max] {
                let delay = huge.delay(afterFailures: failures, retryAfter: 1e300, using: &random)
                #expect(
                    delay.isFinite && delay >= 0 && delay <= Backoff.longestSeconds, "\(minimum)…\(maximum): \(delay)")
            }
            let exact = Backoff(initial: minimum, maximum: maximum)
            #expect(exact.delay(afterFailures: 100) <= Backoff.longestSeconds)
        }
    }
}

struct PrivacyZoneTests {
    /// A run due north from 48.2000 N 16.3700 E at 3 m/s, with no fix for its first 5 s.
    static func run(seconds: Int = 600) -> Activity {
        var points: [RecordPoint] = []
        for t in 1...seconds {
            let distance = Double(t) * 3
            var point = RecordPoint(elapsedSeconds: t, distanceMeters: distance)
            if t > 5 {
                point.latitude = 48.2 + distance / 111_195
                point.longitude = 16.37
                point.gpsFix = .threeD
            }
            point.heartRateBPM = 140
            points.append(point)
        }
        let summary = RunSummary(
            elapsedSeconds: Double(seconds), steps: nil,
            statistics: RunStatistics(
                distanceMeters: Double(seconds) * 3, timerSeconds: Double(seconds), movingSeconds: seconds,
                averageHeartRate: 140, maximumHeartRate: 140, averageCadence: nil, maximumSpeed: 3,
                pointCount: seconds),
            splits: [])
        return Activity(start: WallInstant(secondsSinceEpoch: 1_780_000_000), points: points, summary: summary)
    }

    @Test("Points inside a zone, and unfixed points next to it, are removed; distance and summary are kept")
    func removesInside() {
        let home = PrivacyZone(name: "home", latitude: 48.2, longitude: 16.37, radiusMeters: 200)
        let work = PrivacyZone(name: "work", latitude: 48.2 + 1200 / 111_195, longitude: 16.37, radiusMeters: 100)
        let result = PrivacyFilter(zones: [home, work]).apply(Self.run())
        for point in result.activity.points {
            if let lat = point.latitude, let lon = point.longitude {
                #expect(!home.contains(latitude: lat, longitude: lon) && !work.contains(latitude: lat, longitude: lon))
            }
        }
        // Home: 200 m at 3 m/s is up to second 66 (the 5 unfixed seconds before go too). Work:
        // 1,100 to 1,300 m, seconds 367 to 433.
        #expect(result.activity.points.first?.elapsedSeconds == 67)
        #expect(!result.activity.points.contains { (367...433).contains($0.elapsedSeconds) })
        #expect(result.activity.points.contains { $0.elapsedSeconds == 366 })
        #expect(result.removedPoints == 66 + 67)
        #expect(result.zonesTouched == ["home", "work"])
        #expect(result.activity.summary == Self.run().summary)
        #expect(result.activity.points.last?.distanceMeters == 1800)
    }

    @Test("A run that ends indoors at home: the unfixed points after its last fix inside the zone go too")
    func endsIndoors() {
        // Home is where the run is at 300 m (second 100), 52 m across: the fixes from 249 m (second
        // 83) are inside. The GPS is lost indoors for the last 5 s: no fix after them to look at,
        // only the fix before, inside.
        let home = PrivacyZone(name: "home", latitude: 48.2 + 300 / 111_195, longitude: 16.37, radiusMeters: 52)
        var activity = Self.run(seconds: 100)
        for i in 95..<100 {
            activity.points[i].latitude = nil
            activity.points[i].longitude = nil
            activity.points[i].gpsFix = .none
        }
        let result = PrivacyFilter(zones: [home]).apply(activity)
        #expect(result.activity.points.map(\.elapsedSeconds) == Array(1...82))
        #expect(result.removedPoints == 18)
        #expect(result.zonesTouched == ["home"])
    }

    @Test("Without zones, or far from them, nothing changes")
    func farAway() {
        let activity = Self.run()
        #expect(PrivacyFilter(zones: []).apply(activity).activity == activity)
        let elsewhere = PrivacyZone(name: "elsewhere", latitude: -33.9, longitude: 151.2, radiusMeters: 5000)
        let result = PrivacyFilter(zones: [elsewhere]).apply(activity)
        #expect(result.activity == activity && result.removedPoints == 0 && result.zonesTouched.isEmpty)
    }

    @Test("Distances match the haversine formula's known values")
    func distances() {
        // One degree of latitude on the mean sphere is 111,195 m; Vienna to Bratislava about 55 km.
        let degree = PrivacyZone(name: "a", latitude: 0, longitude: 0, radiusMeters: 111_195.1)
        #expect(degree.contains(latitude: 1, longitude: 0))
        #expect(
            !PrivacyZone(name: "a", latitude: 0, longitude: 0, radiusMeters: 111_194).contains(
                latitude: 1, longitude: 0))
        let vienna = PrivacyZone(name: "v", latitude: 48.2082, longitude: 16.3738, radiusMeters: 56_000)
        #expect(vienna.contains(latitude: 48.1486, longitude: 17.1077))
        #expect(
            !PrivacyZone(name: "v", latitude: 48.2082, longitude: 16.3738, radiusMeters: 54_000)
                .contains(latitude: 48.1486, longitude: 17.1077))
    }
}

struct WirelessTextTests {
    @Test("wpa_supplicant's STATUS: associated only when COMPLETED, with the SSID unescaped")
    func wpaStatus() {
        let completed = """
            bssid=02:00:00:00:01:00
            freq=2412
            ssid=Home\\x20Net\\xe2\\x9c\\x93
            id=0
            mode=station
            pairwise_cipher=CCMP
            group_cipher=CCMP
            key_mgmt=WPA2-PSK
            wpa_state=COMPLETED
            ip_address=192.168.1.20
            address=02:00:00:00:00:00
            """
        let state = WirelessText.wpaStatus(completed, interface: "wlan0")
        #expect(state.associated && state.ssid == "Home Net✓")
        let scanning = "wpa_state=SCANNING\naddress=02:00:00:00:00:00\n"
        #expect(
            WirelessText.wpaStatus(scanning, interface: "wlan0")
                == WirelessState(
                    associated: false, detail: "wpa_supplicant on wlan0: SCANNING"))
        #expect(!WirelessText.wpaStatus("ssid=Home\nwpa_state=ASSOCIATING\n", interface: "wlan0").associated)
    }

    @Test("iw dev wlan0 link: connected with its SSID, or not connected")
    func iwLink() {
        let connected = """
            Connected to 02:00:00:00:01:00 (on wlan0)
            \tSSID: Caf\\xc3\\xa9 \\\\ Bar
            \tfreq: 2412
            \tRX: 1234 bytes (12 packets)
            \tsignal: -30 dBm
            """
        let state = WirelessText.iwLink(connected, interface: "wlan0")
        #expect(state.associated && state.ssid == "Café \\ Bar")
        #expect(!WirelessText.iwLink("Not connected.\n", interface: "wlan0").associated)
        #expect(!WirelessText.iwLink("", interface: "wlan0").associated)
    }

    @Test("Home is a configured SSID while associated; away is never home unless configured")
    func policy() {
        let policy = HomePolicy(ssids: ["HomeNet"], source: .auto)
        #expect(policy.allowsUpload(WirelessState(associated: true, ssid: "HomeNet", detail: "")))
        #expect(!policy.allowsUpload(WirelessState(associated: true, ssid: "CafeWifi", detail: "")))
        #expect(!policy.allowsUpload(WirelessState(associated: false, ssid: "HomeNet", detail: "")))
        #expect(
            !HomePolicy(ssids: [], source: .iw).allowsUpload(WirelessState(associated: true, ssid: "x", detail: "")))
        #expect(
            HomePolicy(ssids: [], source: .iw, uploadAway: true).allowsUpload(
                WirelessState(associated: false, detail: "")))
        #expect(HomePolicy(ssids: [], source: .always).allowsUpload(WirelessState(associated: false, detail: "")))
        #expect(policy.describe(WirelessState(associated: true, ssid: "CafeWifi", detail: "")) == "away (on CafeWifi)")
    }
}
