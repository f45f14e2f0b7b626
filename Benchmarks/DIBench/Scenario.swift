/// One benchmarked operation, implemented four ways that do the same work.
///
/// Each implementation is a setup closure that builds whatever the operation needs (an injector, a
/// container, hand-wired singletons) and returns the workload: a closure that runs the operation a
/// given number of times and returns a checksum of what it built. A peer library with no analogue of
/// the operation says why instead.
struct Scenario {
    enum Implementation: String, CaseIterable, Codable, Sendable {
        case provision
        case handWired = "hand-wired"
        case swinject
        case swiftDependencies = "swift-dependencies"
    }

    /// How a peer library runs the scenario, or why it can't (shown in its column instead of a time).
    enum Peer {
        case setup(() throws -> Sampler.Workload)
        case unsupported(String)
    }

    let name: String
    let provision: () throws -> Sampler.Workload
    let handWired: () throws -> Sampler.Workload
    let swinject: Peer
    let swiftDependencies: Peer

    /// Why an implementation can't run this scenario, keyed by implementation.
    var unsupported: [Implementation: String] {
        var reasons: [Implementation: String] = [:]
        if case .unsupported(let reason) = swinject { reasons[.swinject] = reason }
        if case .unsupported(let reason) = swiftDependencies { reasons[.swiftDependencies] = reason }
        return reasons
    }

    /// The implementations this scenario measures.
    var implementations: [Implementation] {
        let unsupported = unsupported
        return Implementation.allCases.filter { unsupported[$0] == nil }
    }

    func setup(_ implementation: Implementation) throws -> Sampler.Workload {
        switch implementation {
        case .provision: return try provision()
        case .handWired: return try handWired()
        case .swinject: return try Self.run(swinject, implementation)
        case .swiftDependencies: return try Self.run(swiftDependencies, implementation)
        }
    }

    private static func run(_ peer: Peer, _ implementation: Implementation) throws -> Sampler.Workload {
        switch peer {
        case .setup(let setup): return try setup()
        case .unsupported(let reason): throw Unsupported(implementation: implementation, reason: reason)
        }
    }

    struct Unsupported: Error, CustomStringConvertible {
        let implementation: Implementation
        let reason: String
        var description: String { "\(implementation.rawValue) can't run this scenario (\(reason))" }
    }
}

/// The measuring loop of every implementation: `operation` is a non-escaping closure of a function that
/// is always inlined, so its code lands in the loop itself, as it would in a caller's own function (no
/// call through a closure, no `@inline(never)` boundary): the floors' hand-written code, and Provision's,
/// Swinject's and swift-dependencies' calls, are each measured as code a user writes would run them.
/// Each result still goes to `fold`, which is not inlined, so every object the operation builds must
/// really be allocated, and which can't be hoisted out of the loop, so a stored singleton is read and
/// handed over at every operation. (Until 2026-11-25 the containers' operations were escaping closures
/// called indirectly, about 25 instructions per operation that the floors didn't pay.)
@inline(__always)
func inlinedLoop(_ count: Int, _ operation: () throws -> AnyObject) rethrows -> UInt {
    var sink: UInt = 0
    for _ in 0..<count {
        fold(try operation(), into: &sink)
    }
    return sink
}

/// The key of the hand-wired factory table used by the injector-creation scenarios.
struct HandKey: Hashable {
    let type: ObjectIdentifier
    let name: String

    init(_ type: Any.Type, _ name: String) {
        self.type = ObjectIdentifier(type)
        self.name = name
    }
}
