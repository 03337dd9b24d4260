// swift-tools-version:6.1
// Handoff: the runner's pack (handoffd, handoff) and, later, the group store.
// Module layering follows DESIGN.md: a module imports only modules listed before it.

import PackageDescription

let package = Package(
    name: "Handoff",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "handoffd", targets: ["handoffd"]),
        .executable(name: "handoff", targets: ["handoff"]),
        .executable(name: "handoff-store", targets: ["handoff-store"]),
        // The pure modules, for the fuzz targets in Fuzz/ (a package of its own; scripts/fuzz).
        .library(name: "HandoffModel", targets: ["HandoffModel"]),
        .library(name: "SensorCodecs", targets: ["SensorCodecs"]),
        .library(name: "ActivityFormats", targets: ["ActivityFormats"]),
        .library(name: "Recorder", targets: ["Recorder"]),
        .library(name: "WebForms", targets: ["WebForms"]),
        .library(name: "Photos", targets: ["Photos"]),
        .library(name: "Training", targets: ["Training"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // The group store (handoff-store); nothing of it is linked into the pack.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The store's pages: templates that escape by default (Hummingbird's own).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // Declared for the products the store imports directly (Hummingbird brings them anyway).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // Pure modules: no I/O.
        .target(name: "HandoffModel"),
        .target(name: "SensorCodecs", dependencies: ["HandoffModel"]),
        .target(name: "GATT", dependencies: ["SensorCodecs"]),
        // Activity files (FIT, GPX, TCX): pure, free of pack-only code, so the group store reuses them.
        .target(name: "ActivityFormats", dependencies: ["HandoffModel"]),
        .target(name: "Recorder", dependencies: ["HandoffModel", "SensorCodecs"]),
        .target(name: "RunSimulator", dependencies: ["HandoffModel", "SensorCodecs"]),
        // Web form bodies (multipart/form-data): pure, no Hummingbird or Foundation, so a fuzzer builds it alone.
        .target(name: "WebForms"),
        // Photo uploads (JPEG, PNG): metadata out, bombs refused; pure, no Foundation, so a fuzzer builds it alone.
        .target(name: "Photos"),
        // Training science from a run's data: heart-rate variability from the strap's RR intervals.
        .target(name: "Training", dependencies: ["HandoffModel"]),
        // The group store's HTTP API as Codable types, for the store and for its clients.
        .target(name: "HandoffAPI", dependencies: ["SensorCodecs"]),

        // I/O adapters.
        // System plumbing: system calls retrying EINTR, Unix sockets, backoff, stop flags.
        .target(name: "CPackSystem"),
        // Live tracking's one kept-alive HTTP connection: libcurl's easy interface (issue 35).
        .target(name: "CLiveHTTP", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "PackSystem", dependencies: ["CPackSystem"]),
        .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .target(name: "BlueZ", dependencies: ["CBlueZ", "GATT", "SensorCodecs", "PackSystem"]),
        .target(
            name: "PackSensors",
            dependencies: [
                "HandoffModel", "SensorCodecs", "GATT", "BlueZ", "CPackSystem", "PackSystem",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "PackStorage",
            dependencies: [
                "HandoffModel", "Recorder",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "PackControl", dependencies: ["HandoffModel", "PackSystem"]),
        // Runs go home: the store client, home Wi-Fi detection, the outbox worker, privacy zones.
        .target(
            name: "PackSync",
            dependencies: [
                "HandoffModel", "HandoffAPI", "ActivityFormats", "PackStorage", "CPackSystem", "PackSystem",
                "CLiveHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "PackService",
            dependencies: [
                "HandoffModel", "SensorCodecs", "ActivityFormats", "Recorder", "BlueZ", "PackSensors", "PackStorage",
                "PackControl", "CPackSystem", "PackSystem", "PackSync",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        .target(
            name: "PackCLI",
            dependencies: [
                "HandoffModel", "HandoffAPI", "SensorCodecs", "RunSimulator", "PackControl", "PackSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/demo-run.capture.jsonl")]),

        // The group store: accounts, groups, the baton, runs (DESIGN.md "The group store").
        .target(
            name: "GroupStore",
            dependencies: [
                "HandoffModel", "HandoffAPI", "SensorCodecs", "ActivityFormats", "WebForms", "Photos", "Training",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/templates"), .copy("Resources/static")]),

        // Thin executables.
        .executableTarget(
            name: "handoffd",
            dependencies: [
                "HandoffModel", "PackControl", "PackService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(name: "handoff", dependencies: ["HandoffModel", "PackCLI"]),
        .executableTarget(
            name: "handoff-store",
            dependencies: [
                "GroupStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Work loads for scripts/bench (callgrind); not part of a pack.
        .executableTarget(
            name: "handoff-bench",
            dependencies: [
                "ActivityFormats", "BlueZ", "GATT", "HandoffModel", "PackSensors", "PackStorage", "PackSync",
                "PackSystem", "Recorder",
                "SensorCodecs",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Tests.
        .target(
            name: "TestSupport",
            dependencies: [
                "ActivityFormats", "HandoffModel", "SensorCodecs", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "SensorCodecsTests",
            dependencies: [
                "HandoffModel", "SensorCodecs", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "ActivityFormatsTests",
            dependencies: [
                "ActivityFormats", "HandoffModel", "Recorder", "RunSimulator", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "BluetoothTests",
            dependencies: [
                "BlueZ", "GATT", "SensorCodecs", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "TrainingTests",
            dependencies: [
                "ActivityFormats", "HandoffModel", "SensorCodecs", "TestSupport", "Training",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "PhotosTests",
            dependencies: ["Photos", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(
            name: "RecorderTests",
            dependencies: ["HandoffModel", "Recorder", "RunSimulator", "SensorCodecs", "TestSupport"]),
        .testTarget(
            name: "RunSimulatorTests",
            dependencies: ["HandoffModel", "RunSimulator", "SensorCodecs", "TestSupport"]),
        .testTarget(
            name: "PackSensorsTests",
            dependencies: [
                "PackSensors", "BlueZ", "HandoffModel", "SensorCodecs", "TestSupport", "PackSystem",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PackStorageTests",
            dependencies: [
                "HandoffModel", "PackStorage", "Recorder", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "PackServiceTests",
            dependencies: [
                "HandoffModel", "PackService", "PackControl", "PackSensors", "PackStorage", "RunSimulator",
                "TestSupport", "PackSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "GroupStoreTests",
            dependencies: [
                "GroupStore", "ActivityFormats", "HandoffAPI", "HandoffModel", "SensorCodecs", "TestSupport",
                "WebForms", "Recorder", "RunSimulator", "Training",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The golden pages are read from the source tree by path, not bundled.
            exclude: ["Golden"]),
        .testTarget(
            name: "PackSyncTests",
            dependencies: [
                "PackSync", "PackStorage", "PackControl", "PackService", "ActivityFormats", "HandoffAPI",
                "HandoffModel",
                "GroupStore", "TestSupport", "PackSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ActivityFormats", "HandoffModel", "PackControl", "PackSystem", "SensorCodecs", "RunSimulator",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)

// CI (.ci/run sets HANDOFF_WARNINGS_AS_ERRORS=1) treats a warning in our own Swift targets as an
// error; the packages we depend on keep theirs. A developer's loop keeps warnings as warnings.
if Context.environment["HANDOFF_WARNINGS_AS_ERRORS"] == "1" {
    for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
    }
}
