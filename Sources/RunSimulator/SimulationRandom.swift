#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// xoshiro256** seeded through SplitMix64: the same seed gives the same run on every machine
/// with the same libm (captures are compared byte for byte on x86_64 in the tests).
struct SimulationRandom {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    private var spareGaussian: Double?

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    mutating func next() -> UInt64 {
        let result = rotl(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotl(state.3, 45)
        return result
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Normally distributed with mean 0 and standard deviation `sigma` (Box–Muller).
    mutating func gaussian(_ sigma: Double = 1) -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare * sigma
        }
        let u1 = max(uniform(), 1e-300)
        let u2 = uniform()
        let radius = (-2 * log(u1)).squareRoot()
        spareGaussian = radius * sin(2 * Double.pi * u2)
        return radius * cos(2 * Double.pi * u2) * sigma
    }
}

/// A first-order Gauss–Markov process: noise correlated over `tau` seconds with standard
/// deviation `sigma` — how a GPS receiver's position error wanders.
struct GaussMarkov {
    let sigma: Double
    let tau: Double
    private(set) var value: Double = 0

    init(sigma: Double, tau: Double, random: inout SimulationRandom) {
        self.sigma = sigma
        self.tau = tau
        value = random.gaussian(sigma)
    }

    mutating func step(_ dt: Double, random: inout SimulationRandom) -> Double {
        let decay = exp(-dt / tau)
        value = value * decay + random.gaussian(sigma * (1 - decay * decay).squareRoot())
        return value
    }
}
