// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Provision",
    products: [
        .library(name: "Provision", targets: ["Provision"]),
        // Resolution events to swift-log: a library of its own, so that Provision depends on nothing.
        .library(name: "ProvisionLogging", targets: ["ProvisionLogging"]),
        .executable(name: "di-bench", targets: ["DIBench"]),
        .executable(name: "provision-stress", targets: ["ProvisionStress"]),
    ],
    dependencies: [
        // The Provision library itself depends on nothing. swift-log is for ProvisionLogging only; the
        // others are for the benchmark.
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        .target(name: "Provision"),
        .target(
            name: "ProvisionLogging",
            dependencies: ["Provision", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "DIBench",
            dependencies: [
                "Provision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Swinject", package: "Swinject"),
            ],
            path: "Benchmarks/DIBench"
        ),
        .executableTarget(name: "ProvisionStress", dependencies: ["Provision"]),
        .testTarget(name: "ProvisionTests", dependencies: ["Provision"]),
        .testTarget(
            name: "ProvisionLoggingTests",
            dependencies: [
                "Provision",
                "ProvisionLogging",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
