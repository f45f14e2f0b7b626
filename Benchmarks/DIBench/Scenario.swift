/// One benchmarked operation, implemented three ways that do the same work.
///
/// Each implementation is a setup closure that builds whatever the operation needs (an injector, a
/// container, hand-wired singletons) and returns the workload: a closure that runs the operation a
/// given number of times and returns a checksum of what it built.
struct Scenario {
    enum Implementation: String, CaseIterable, Codable, Sendable {
        case provision
        case handWired = "hand-wired"
        case swinject
    }

    let name: String
    let provision: () throws -> Sampler.Workload
    let handWired: () throws -> Sampler.Workload
    let swinject: () throws -> Sampler.Workload
    /// Why Swinject can't run this scenario at all, when it can't (shown in its column instead of a time).
    var swinjectUnsupported: String? = nil

    /// The implementations this scenario measures.
    var implementations: [Implementation] {
        Implementation.allCases.filter { $0 != .swinject || swinjectUnsupported == nil }
    }

    func setup(_ implementation: Implementation) throws -> Sampler.Workload {
        switch implementation {
        case .provision: try provision()
        case .handWired: try handWired()
        case .swinject: try swinject()
        }
    }
}

/// Builds a workload that repeats `operation` and folds each result's identity into a checksum.
func repeating(_ operation: @escaping () throws -> AnyObject) -> Sampler.Workload {
    { count in
        var sink: UInt = 0
        for _ in 0..<count {
            sink ^= identity(try operation())
        }
        return sink
    }
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
