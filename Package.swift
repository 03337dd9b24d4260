// swift-tools-version:6.1
// Handoff: the runner's pack (handoffd, handoff) and, later, the group store.
// Module layering follows DESIGN.md: a module imports only modules listed before it.

import PackageDescription

let package = Package(
    name: "Handoff",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1")
    ],
    targets: [
        // Pure modules: no I/O.
        .target(name: "HandoffModel"),
        .target(name: "SensorCodecs", dependencies: ["HandoffModel"]),
        .target(name: "Recorder", dependencies: ["HandoffModel", "SensorCodecs"]),
        .target(name: "RunSimulator", dependencies: ["HandoffModel", "SensorCodecs"]),

        // Tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "SensorCodecsTests",
            dependencies: [
                "SensorCodecs", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "RecorderTests",
            dependencies: ["Recorder", "RunSimulator", "SensorCodecs", "TestSupport"]),
        .testTarget(
            name: "RunSimulatorTests",
            dependencies: ["RunSimulator", "SensorCodecs", "TestSupport"]),
    ]
)
