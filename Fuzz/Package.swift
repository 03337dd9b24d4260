// swift-tools-version:6.1
// Fuzz targets for Handoff's readers (docs: Fuzz/README.md). Not part of the main build: a
// libFuzzer target has no `main` of its own, so it links only with `-sanitize=fuzzer`. Build and
// run them with scripts/fuzz, which builds this package in its own scratch folder (.build-fuzz).
//
// It depends on the root package by path and compiles only its pure modules, so the fuzz build
// needs none of the store's server dependencies.

import PackageDescription

/// The root package's identity: its folder's name (a clone may be named anything).
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"

/// A libFuzzer target: `Sources/fuzz-NAME/`, built into the executable `fuzz-NAME`. Each defines
/// `LLVMFuzzerTestOneInput` and a `fuzz_NAME_main` that starts libFuzzer's driver: SwiftPM links
/// an executable with `main` renamed from `<module>_main` (so tests can link executables), which
/// would otherwise leave the link without an entry point.
func fuzzTarget(_ name: String, _ modules: [String]) -> Target {
    .executableTarget(
        name: "fuzz-\(name)",
        dependencies: ["FuzzSupport"] + modules.map { .product(name: $0, package: root) })
}

let package = Package(
    name: "HandoffFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer", .product(name: "ActivityFormats", package: root)]),
        // A FIT file's RR intervals and laps go on to the HRV analysis, as the store's upload does.
        fuzzTarget("fit", ["ActivityFormats", "Training"]),
        fuzzTarget("gpx", ["ActivityFormats"]),
        fuzzTarget("tcx", ["ActivityFormats"]),
        fuzzTarget("xmldate", ["ActivityFormats", "HandoffModel"]),
        fuzzTarget("csv", ["SensorCodecs"]),
        fuzzTarget("nmea", ["SensorCodecs"]),
        fuzzTarget("gpsd", ["SensorCodecs"]),
        fuzzTarget("polar", ["SensorCodecs"]),
        fuzzTarget("zephyr", ["SensorCodecs"]),
        fuzzTarget("capture", ["SensorCodecs", "HandoffModel"]),
        fuzzTarget("gatt", ["SensorCodecs"]),
        fuzzTarget("replay", ["SensorCodecs", "HandoffModel", "Recorder"]),
        fuzzTarget("multipart", ["WebForms"]),
        fuzzTarget("photo", ["Photos"]),
    ]
)
