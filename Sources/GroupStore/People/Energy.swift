import Foundation
import HandoffAPI
import HandoffModel

/// An estimate of the energy a run took, for its runner's page: from heart rate, weight, age and
/// gender by Keytel et al. (2005, J Sports Sci 23:289), or, without them, from weight and distance.
enum Energy {
    /// Kilocalories per kilogram per kilometre when only weight is known: about 1 for running
    /// (Margaria 1963), less on foot walking and far less on a bike.
    static func perKilogramKilometre(_ sport: String) -> Double {
        switch sport {
        case Sport.bike.rawValue: 0.3
        case Sport.walk.rawValue: 0.7
        default: 1.0
        }
    }

    /// Kilocalories, or nil without a weight, or when the file's values give no plausible
    /// estimate (a file may say a heart rate of 1e300 or a moving time of infinity).
    static func kilocalories(
        sport: String, meters: Double, minutes: Double, averageHeartRate: Double?, profile: Profile, at: WallInstant
    ) -> Double? {
        guard let weight = profile.values[.weight].flatMap(Double.init), ProfileField.weights.contains(weight) else {
            return nil
        }
        let estimate = estimate(
            sport: sport, meters: meters, minutes: minutes, heartRate: averageHeartRate, weight: weight,
            age: profile.age(at: at), gender: profile.values[.gender])
        guard let estimate, estimate.isFinite, (0...100_000).contains(estimate) else { return nil }
        return estimate
    }

    private static func estimate(
        sport: String, meters: Double, minutes: Double, heartRate: Double?, weight: Double, age: Int?,
        gender: String?
    ) -> Double? {
        if let heartRate, (30...250).contains(heartRate), let age, (0...130).contains(age),
            minutes.isFinite, minutes > 0, minutes < 7 * 24 * 60
        {
            let perMinute: Double? =
                switch gender {
                case "man": -55.0969 + 0.6309 * heartRate + 0.1988 * weight + 0.2017 * Double(age)
                case "woman": -20.4022 + 0.4472 * heartRate - 0.1263 * weight + 0.074 * Double(age)
                default: nil
                }
            if let perMinute, perMinute > 0 { return perMinute / 4.184 * minutes }
        }
        return meters.isFinite && meters > 0 ? perKilogramKilometre(sport) * weight * meters / 1000 : nil
    }
}
