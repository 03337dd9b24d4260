import Foundation
import HandoffModel

/// An estimate of the energy a run took, for its runner's page: from heart rate, weight, age and
/// gender by Keytel et al. (2005, J Sports Sci 23:289), or, without them, from weight and distance.
enum Energy {
    /// Kilocalories per kilogram per kilometre when only weight is known: about 1 for running
    /// (Margaria 1963), less on foot walking and far less on a bike.
    static func perKilogramKilometre(_ sport: String) -> Double {
        switch sport {
        case "cycling": 0.3
        case "walking", "hiking": 0.7
        default: 1.0
        }
    }

    /// Kilocalories, or nil without a weight.
    static func kilocalories(
        sport: String, meters: Double, minutes: Double, averageHeartRate: Double?, profile: Profile, at: WallInstant
    ) -> Double? {
        guard let weight = profile.values[.weight].flatMap(Double.init) else { return nil }
        if let heartRate = averageHeartRate, let age = profile.age(at: at), minutes > 0 {
            let perMinute: Double? =
                switch profile.values[.gender] {
                case "man": -55.0969 + 0.6309 * heartRate + 0.1988 * weight + 0.2017 * Double(age)
                case "woman": -20.4022 + 0.4472 * heartRate - 0.1263 * weight + 0.074 * Double(age)
                default: nil
                }
            if let perMinute, perMinute > 0 { return perMinute / 4.184 * minutes }
        }
        return meters > 0 ? perKilogramKilometre(sport) * weight * meters / 1000 : nil
    }
}
