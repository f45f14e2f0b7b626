import CHeapUsage
import Provision
import Swinject

/// The heap memory an injector of 10,000 bindings keeps, per binding, beside Swinject's container and
/// the hand-wired factory table of the same bindings (the "injector creation, 10k bindings" scenario's).
///
/// Measured with glibc's `mallinfo2` (see `CHeapUsage`; 0 bytes elsewhere): the bytes in use by `malloc` (every arena, and the blocks it
/// mapped on its own) before and after creating `copies` of the container, all kept alive, divided by
/// their bindings. The module and its factories exist before the first measurement, so only what
/// creating a container allocates is counted.
enum Footprint {
    struct Result: Codable {
        var implementation: String
        var bytesPerBinding: Double
    }

    /// The names of the 10 copies of the 1,000 leaves: 10,000 bindings.
    static let names: [String?] = (0..<10).map { "copy \($0)" }
    static let bindings = 10_000

    static func run(copies: Int) throws -> [Result] {
        let module = CreationModule(names: names, eager: false)
        return [
            Result(
                implementation: "provision",
                bytesPerBinding: try measure(copies: copies) { try Injector(module) }
            ),
            Result(
                implementation: "hand-wired",
                bytesPerBinding: try measure(copies: copies) {
                    var table: [HandKey: () -> AnyObject] = [:]
                    table.reserveCapacity(bindings)
                    for name in names { Wide1000.addFactories(to: &table, named: name ?? "") }
                    return FactoryTable(table)
                }
            ),
            Result(
                implementation: "swinject",
                bytesPerBinding: try measure(copies: copies) {
                    let container = Container()
                    for name in names { Wide1000.registerLeaves(container, named: name) }
                    return container
                }
            ),
        ]
    }

    /// The bytes per binding that `make` keeps allocated, over `copies` containers (one made and freed
    /// first, so that one-time caches of the runtime and the allocator are filled).
    private static func measure(copies: Int, _ make: () throws -> AnyObject) throws -> Double {
        _ = try make()
        var kept: [AnyObject] = []
        kept.reserveCapacity(copies)
        let before = heapInUse()
        for _ in 0..<copies { kept.append(try make()) }
        let after = heapInUse()
        return withExtendedLifetime(kept) { Double(after - before) / Double(copies * bindings) }
    }

    /// The bytes `malloc` has handed out and not had back, in every arena and in its own mappings.
    private static func heapInUse() -> Int {
        Int(c_heap_bytes_in_use())
    }
}
