import Foundation

/// Training load (Banister's impulse-response model): each activity's TRIMP from its duration
/// and average heart rate, and from the daily loads, fitness (a 42-day exponentially weighted
/// average), fatigue (7-day) and form (fitness minus fatigue).
public enum TrainingLoad {
    /// Banister's TRIMP (1991): minutes × HRr × a·e^(b·HRr), HRr the heart-rate reserve used
    /// ((average − resting) / (maximum − resting), clamped to 0…1); a = 0.64, b = 1.92 for men,
    /// 0.86 and 1.67 for women.
    public static func trimp(
        minutes: Double, averageHeartRate: Double, resting: Double, maximum: Double, female: Bool = false
    ) -> Double {
        guard minutes.isFinite, minutes > 0, maximum > resting, averageHeartRate.isFinite else { return 0 }
        let reserve = min(1, max(0, (averageHeartRate - resting) / (maximum - resting)))
        let (a, b) = female ? (0.86, 1.67) : (0.64, 1.92)
        return minutes * reserve * a * exp(b * reserve)
    }

    /// Without a heart rate: the same formula at an assumed reserve, 0.4 for a walk and 0.6 (a
    /// steady aerobic effort) for anything else. An estimate, said to be one where shown.
    public static func estimatedTRIMP(minutes: Double, walking: Bool, female: Bool = false) -> Double {
        guard minutes.isFinite, minutes > 0 else { return 0 }
        let reserve = walking ? 0.4 : 0.6
        let (a, b) = female ? (0.86, 1.67) : (0.64, 1.92)
        return minutes * reserve * a * exp(b * reserve)
    }

    public struct Point: Sendable, Equatable {
        public var fitness: Double
        public var fatigue: Double
        /// Fitness minus fatigue before the day's load: how fresh one starts the day.
        public var form: Double

        public init(fitness: Double, fatigue: Double, form: Double) {
            self.fitness = fitness
            self.fatigue = fatigue
            self.form = form
        }
    }

    /// Fitness, fatigue and form for each day of `loads` (oldest first, one per day), from zero
    /// before the first: x_t = x_(t−1) + (load_t − x_(t−1)) · (1 − e^(−1/τ)), τ = 42 and 7 days.
    public static func curves(_ loads: [Double]) -> [Point] {
        let kFitness = 1 - exp(-1.0 / 42)
        let kFatigue = 1 - exp(-1.0 / 7)
        var fitness = 0.0
        var fatigue = 0.0
        return loads.map { load in
            let form = fitness - fatigue
            let value = load.isFinite && load > 0 ? load : 0
            fitness += (value - fitness) * kFitness
            fatigue += (value - fatigue) * kFatigue
            return Point(fitness: fitness, fatigue: fatigue, form: form)
        }
    }
}
