import Foundation
import Provision
import Synchronization
import Testing

/// Issue 13, defect 9: every install and every just-in-time binding copied its stripe's table and kept
/// the old copy forever, so memory grew with the square of the number of bindings: 2,000 single-binding
/// installs grew the resident memory by 207 MB, 10,000 by 5.3 GB (they now add 1 MB and 6 MB).
///
/// The bindings' own size is measured beside: the resident-memory growth of creating an injector with
/// the same number of bindings. Each test runs in a child process of its own, so that the tests running
/// beside it in this process don't disturb its figures.
@Suite(
    "Registry memory",
    .disabled(if: sanitizerIsLoaded, "under a sanitizer, resident memory counts its shadow memory and quarantine")
)
struct RegistryMemoryTests {
    /// The growth allowed beyond the bindings' own memory.
    static let allowance = 16 << 20
    /// How many bindings each test adds.
    static let bindingCount = 10_000

    @Test("10,000 single-binding installs: memory grows by the bindings' own size plus at most 16 MB")
    func installsKeepMemoryLinear() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let count = RegistryMemoryTests.bindingCount
            // The bindings' own size: the same bindings, added all at once by creating an injector.
            let start = residentBytes()
            let reference = try Injector(
                ClosureModule { binder in
                    for index in 0..<count { binder.bind(Int.self, named: "key \(index)").toInstance(index) }
                }
            )
            let afterReference = residentBytes()
            let injector = try Injector()
            for index in 0..<count {
                try injector.install(ClosureModule { $0.bind(Int.self, named: "key \(index)").toInstance(index) })
            }
            let afterInstalls = residentBytes()
            var wrong = 0
            for index in 0..<count where try injector.get(Int.self, named: "key \(index)") != index {
                wrong += 1
            }
            withExtendedLifetime(reference) {}
            print(Figures(bindings: afterReference - start, growth: afterInstalls - afterReference, wrong: wrong).line)
        }
        let figures = try #require(Figures(output: result?.standardOutputContent))
        #expect(figures.wrong == 0)
        #expect(
            figures.growth <= figures.bindings + Self.allowance,
            "\(Self.bindingCount) installs grew memory by \(figures.growth >> 10) KB; the bindings take \(figures.bindings >> 10) KB"
        )
    }

    @Test("10,000 distinct named just-in-time bindings: memory grows by their own size plus at most 16 MB")
    func justInTimeBindingsKeepMemoryLinear() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let count = RegistryMemoryTests.bindingCount
            // A named `Provider` is bound just in time (one binding per name, all in one stripe). The
            // bindings' own size: as many bindings made by a module, each with a factory of its own.
            let start = residentBytes()
            let reference = try Injector(
                ClosureModule { binder in
                    for index in 0..<count { binder.bind(Engine.self, named: "key \(index)").to(Engine.init) }
                }
            )
            let afterReference = residentBytes()
            let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
            for index in 0..<count {
                _ = try injector.get(Provider<Engine>.self, named: "key \(index)")
            }
            let afterRequests = residentBytes()
            var missing = 0
            for index in 0..<count where !injector.hasBinding(for: Provider<Engine>.self, named: "key \(index)") {
                missing += 1
            }
            withExtendedLifetime(reference) {}
            print(
                Figures(bindings: afterReference - start, growth: afterRequests - afterReference, wrong: missing).line)
        }
        let figures = try #require(Figures(output: result?.standardOutputContent))
        #expect(figures.wrong == 0)
        #expect(
            figures.growth <= figures.bindings + Self.allowance,
            "\(Self.bindingCount) just-in-time bindings grew memory by \(figures.growth >> 10) KB; bound ones take \(figures.bindings >> 10) KB"
        )
    }
}

/// What a memory test's child process measured, passed to the parent on one line of its output.
struct Figures {
    /// The resident-memory growth of the reference: the same number of bindings, added at once.
    let bindings: Int
    /// The resident-memory growth of the scenario under test.
    let growth: Int
    /// How many checks of the bindings' values failed.
    let wrong: Int

    init(bindings: Int, growth: Int, wrong: Int) {
        self.bindings = bindings
        self.growth = growth
        self.wrong = wrong
    }

    var line: String { "figures \(bindings) \(growth) \(wrong)" }

    init?(output: [UInt8]?) {
        guard let output, let text = String(bytes: output, encoding: .utf8),
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("figures ") })
        else { return nil }
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard numbers.count == 3 else { return nil }
        self.init(bindings: numbers[0], growth: numbers[1], wrong: numbers[2])
    }
}

/// This process's resident memory in bytes: the second field of `/proc/self/statm`, in pages.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
