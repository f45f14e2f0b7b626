// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Provision",
    products: [
        .library(name: "Provision", targets: ["Provision"]),
        .executable(name: "di-bench", targets: ["DIBench"]),
        .executable(name: "provision-stress", targets: ["ProvisionStress"]),
    ],
    dependencies: [
        // Benchmark-only dependencies: the Provision library itself depends on nothing.
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        .target(name: "Provision"),
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
