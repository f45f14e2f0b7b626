// swift-tools-version: 6.2
import PackageDescription

// Scripts/test.sh sets PROVISION_SKIP_HUMMINGBIRD_TESTS=1 for its AddressSanitizer pass: the test bundle
// then leaves out ProvisionHummingbird's tests, so that swift-nio, async-http-client and BoringSSL are
// not built once more with AddressSanitizer (ThreadSanitizer and the debug pass run them).
let skipsHummingbirdTests = Context.environment["PROVISION_SKIP_HUMMINGBIRD_TESTS"] == "1"

let package = Package(
    name: "Provision",
    products: [
        .library(name: "Provision", targets: ["Provision"]),
        // Resolution events to swift-log: a library of its own, so that Provision depends on nothing.
        .library(name: "ProvisionLogging", targets: ["ProvisionLogging"]),
        // An injector's lifecycle inside a swift-service-lifecycle ServiceGroup: a library of its own too.
        .library(name: "ProvisionServiceLifecycle", targets: ["ProvisionServiceLifecycle"]),
        // One seeded scope per Hummingbird request: a library of its own, on hummingbird.
        .library(name: "ProvisionHummingbird", targets: ["ProvisionHummingbird"]),
        // A Swift Testing trait giving each test an injector of its own: it imports Testing, which the
        // Provision library (linked into services) must not.
        .library(name: "ProvisionTesting", targets: ["ProvisionTesting"]),
        // A span per singleton build and around start()/shutdown(), on swift-distributed-tracing.
        .library(name: "ProvisionTracing", targets: ["ProvisionTracing"]),
        // Builds, failures, waits and cycle errors as swift-metrics counters and timers.
        .library(name: "ProvisionMetrics", targets: ["ProvisionMetrics"]),
        .executable(name: "di-bench", targets: ["DIBench"]),
        .executable(name: "provision-stress", targets: ["ProvisionStress"]),
        .executable(name: "job-daemon", targets: ["JobDaemon"]),
        .executable(name: "todo-server", targets: ["TodoServer"]),
    ],
    dependencies: [
        // The Provision library itself depends on nothing. swift-log is for ProvisionLogging (and comes
        // with swift-service-lifecycle), swift-service-lifecycle for ProvisionServiceLifecycle,
        // hummingbird for ProvisionHummingbird, swift-distributed-tracing for ProvisionTracing,
        // swift-metrics for ProvisionMetrics; postgres-nio and swift-metrics for the example server and
        // daemon; swift-argument-parser for them and the benchmark; the others are for the benchmark.
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", exact: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        // No default traits: neither swift-configuration nor full Foundation is needed here.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    ],
    targets: [
        .target(name: "Provision", dependencies: ["CProvisionStack"]),
        // The calling thread's stack bounds, for the stack guard (a GNU extension Swift's Glibc module
        // doesn't import). Part of the library; no dependency of its own.
        .target(name: "CProvisionStack"),
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
                .product(name: "Dependencies", package: "swift-dependencies"),
                "CHeapUsage",
                "CKeptResult",
            ],
            path: "Benchmarks/DIBench"
        ),
        // glibc's count of the heap in use, for di-bench's memory-per-binding report.
        .target(name: "CHeapUsage", path: "Benchmarks/CHeapUsage"),
        // Each thread's slot for the object di-bench's measuring loops keep.
        .target(name: "CKeptResult", path: "Benchmarks/CKeptResult"),
        .target(
            name: "ProvisionServiceLifecycle",
            dependencies: [
                "Provision",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "ProvisionStress", dependencies: ["Provision"]),
        .target(name: "ProvisionTesting", dependencies: ["Provision"]),
        .target(
            name: "ProvisionTracing",
            dependencies: ["Provision", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),
        .target(
            name: "ProvisionMetrics",
            dependencies: ["Provision", .product(name: "Metrics", package: "swift-metrics")]
        ),
        // The example daemon of the article "Writing a daemon with Provision".
        .executableTarget(
            name: "JobDaemon",
            dependencies: [
                "Provision",
                "ProvisionServiceLifecycle",
                "ExampleSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the example server and daemon share: an in-memory swift-metrics backend for their summaries.
        .target(
            name: "ExampleSupport",
            dependencies: ["Provision", .product(name: "Metrics", package: "swift-metrics")]
        ),
        .target(
            name: "ProvisionHummingbird",
            dependencies: [
                "Provision",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The example server of the article "Serving HTTP with Provision": Hummingbird over PostgreSQL.
        .executableTarget(
            name: "TodoServer",
            dependencies: [
                "Provision",
                "ProvisionServiceLifecycle",
                "ProvisionHummingbird",
                "ExampleSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "ProvisionTests", dependencies: ["Provision"]),
        // Resolves a long chain of bindings on its main thread: ProvisionTests runs it as a child process
        // (a test's own main thread is not available to it).
        .executableTarget(name: "DepthProbe", dependencies: ["Provision"], path: "Tests/DepthProbe"),
        .testTarget(
            name: "ProvisionLoggingTests",
            dependencies: [
                "Provision",
                "ProvisionLogging",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ProvisionTestingTests", dependencies: ["Provision", "ProvisionTesting"]),
        .testTarget(
            name: "ProvisionTracingTests",
            dependencies: [
                "Provision",
                "ProvisionTracing",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "ProvisionMetricsTests",
            dependencies: [
                "Provision",
                "ProvisionMetrics",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "ProvisionServiceLifecycleTests",
            dependencies: [
                "Provision",
                "ProvisionServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if !skipsHummingbirdTests {
    package.targets.append(
        .testTarget(
            name: "ProvisionHummingbirdTests",
            dependencies: [
                "Provision",
                "ProvisionHummingbird",
                "ProvisionServiceLifecycle",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        )
    )
}

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
