import Testing

@testable import Provision

/// The disposal of a scoped binding's instances, decided when the binding is linked: for every shape of
/// bound type, the same answer as casting each instance, and the instance disposed when its scope closes.
@Suite("Disposal classifier")
struct DisposalClassifierTests {
    /// Counts disposals, by name.
    final class Log: Sendable {
        private let names = Locked<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    final class FinalDisposable: Disposable {
        let log: Log
        init(log: Log) { self.log = log }
        func dispose() { log.add("final class") }
    }

    struct ValueDisposable: Disposable {
        let log: Log
        func dispose() { log.add("struct") }
    }

    struct ValueAsyncDisposable: AsyncDisposable {
        let log: Log
        func dispose() async { log.add("async struct") }
    }

    struct Plain: Sendable {}

    class Base: @unchecked Sendable {}

    final class DisposableSubclass: Base, Disposable, @unchecked Sendable {
        let log: Log
        init(log: Log) { self.log = log }
        func dispose() { log.add("subclass") }
    }

    /// How a value would be disposed, as a word the tests compare.
    static func describe(_ disposal: InstanceRecorder.Disposal?) -> String {
        switch disposal {
        case .sync: "sync"
        case .async: "async"
        case nil: "none"
        }
    }

    /// Both answers for `value` seen as a `T`: the classifier's and the per-value casts'.
    static func answers<T>(for value: T, as type: T.Type = T.self) -> (classified: String, cast: String) {
        (describe(DisposalClassifier<T>().disposal(of: value)), describe(InstanceRecorder.Disposal(of: value)))
    }

    @Test("every shape of bound type gets the answer the per-value casts give")
    func sameAnswerAsTheCasts() {
        let log = Log()
        let cases: [(name: String, expected: String, answers: (classified: String, cast: String))] = [
            ("final class, Disposable", "sync", Self.answers(for: FinalDisposable(log: log))),
            ("struct, Disposable", "sync", Self.answers(for: ValueDisposable(log: log))),
            ("struct, AsyncDisposable", "async", Self.answers(for: ValueAsyncDisposable(log: log))),
            ("struct, neither", "none", Self.answers(for: Plain())),
            ("tuple", "none", Self.answers(for: (1, "one"))),
            (
                "base class, a disposable subclass's instance", "sync",
                Self.answers(for: DisposableSubclass(log: log), as: Base.self)
            ),
            ("base class, its own instance", "none", Self.answers(for: Base())),
            (
                "existential, a disposable value", "sync",
                Self.answers(for: ValueDisposable(log: log), as: (any Sendable).self)
            ),
            ("existential, a plain value", "none", Self.answers(for: Plain(), as: (any Sendable).self)),
            (
                "optional of a disposable class", "sync",
                Self.answers(for: FinalDisposable(log: log), as: FinalDisposable?.self)
            ),
            ("optional, nil", "none", Self.answers(for: nil, as: FinalDisposable?.self)),
        ]
        for entry in cases {
            #expect(entry.answers.cast == entry.expected, "\(entry.name): the casts' answer")
            #expect(entry.answers.classified == entry.answers.cast, "\(entry.name): the classifier's answer")
        }
        #expect(log.all.isEmpty, "classifying disposes nothing")
    }

    /// A module binding one scoped instance of every shape (the async disposable one only when asked).
    static func everyShape(_ log: Log, async: Bool) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(FinalDisposable.self).to { _ in FinalDisposable(log: log) }.in(.scoped)
            binder.bind(ValueDisposable.self).to { _ in ValueDisposable(log: log) }.in(.scoped)
            if async {
                binder.bind(ValueAsyncDisposable.self).to { _ in ValueAsyncDisposable(log: log) }.in(.scoped)
            }
            binder.bind(Base.self).to { _ in DisposableSubclass(log: log) }.in(.scoped)
            binder.bind((any Sendable).self).to { _ in ValueDisposable(log: log) }.in(.scoped)
            binder.bind(Plain.self).to { _ in Plain() }.in(.scoped)
        }
    }

    @Test("a scope disposes its instances of every shape of binding, newest first, each once (synchronous)")
    func scopeDisposesEveryShape() throws {
        let log = Log()
        let injector = try Injector(Self.everyShape(log, async: false))
        let scope = injector.makeScope()
        _ = try scope.get(FinalDisposable.self)
        _ = try scope.get(ValueDisposable.self)
        _ = try scope.get(Base.self)
        _ = try scope.get((any Sendable).self)
        _ = try scope.get(Plain.self)
        try scope.close()
        #expect(log.all == ["struct", "subclass", "struct", "final class"])
        try scope.close()
        #expect(log.all.count == 4, "closing twice disposes nothing more")
    }

    @Test("a scope disposes its instances of every shape of binding, newest first, each once (async)")
    func scopeDisposesEveryShapeAsync() async throws {
        let log = Log()
        let injector = try Injector(Self.everyShape(log, async: true))
        let scope = injector.makeScope()
        _ = try await scope.get(FinalDisposable.self)
        _ = try await scope.get(ValueDisposable.self)
        _ = try await scope.get(ValueAsyncDisposable.self)
        _ = try await scope.get(Base.self)
        _ = try await scope.get((any Sendable).self)
        _ = try await scope.get(Plain.self)
        try await scope.close()
        #expect(log.all == ["struct", "subclass", "async struct", "struct", "final class"])
        try await scope.close()
        #expect(log.all.count == 5, "closing twice disposes nothing more")
    }
}
