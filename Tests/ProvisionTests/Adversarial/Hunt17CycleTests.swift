import Dispatch
import Provision
import Testing

// Hunt 17: cycles of every length 1...5, through constructors, closures, handles, singletons, scoped
// bindings and derived injectors: code `cycle`, a path that shows the loop with the repeated key at
// both ends, a `cycle:` line, a hint, and no hang. And the same shapes without a real cycle, which must
// not be reported as one.

protocol Hunt17Tag: SendableMetatype {}
enum Hunt17T0: Hunt17Tag {}
enum Hunt17T1: Hunt17Tag {}
enum Hunt17T2: Hunt17Tag {}
enum Hunt17T3: Hunt17Tag {}
enum Hunt17T4: Hunt17Tag {}

/// One link of a ring, told apart by its tag: `Hunt17Ring<Hunt17T0>`.
struct Hunt17Ring<Tag>: Sendable {}

struct Hunt17RingApp: Sendable {
    let first: Hunt17Ring<Hunt17T0>
}

/// The result of a body run on another thread, or nil if it did not finish in time.
final class Hunt17Outcome: @unchecked Sendable {
    var error: ProvisionError?
    var finished = false
}

/// Runs `body` on another thread and waits at most `seconds`: a hang is a failed expectation.
func hunt17Bounded(
    seconds: Int = 5, sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws(ProvisionError) -> Void
) -> ProvisionError? {
    let outcome = Hunt17Outcome()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        do throws(ProvisionError) {
            try body()
        } catch {
            outcome.error = error
        }
        outcome.finished = true
        done.signal()
    }
    let timedOut = done.wait(timeout: .now() + .seconds(seconds)) == .timedOut
    #expect(!timedOut, "the request hung", sourceLocation: sourceLocation)
    return timedOut ? nil : outcome.error
}

enum Hunt17Rings {
    static let tags: [any Hunt17Tag.Type] = [Hunt17T0.self, Hunt17T1.self, Hunt17T2.self, Hunt17T3.self, Hunt17T4.self]

    static func key(_ index: Int) -> BindingKey {
        func make<A: Hunt17Tag>(_: A.Type) -> BindingKey { BindingKey(Hunt17Ring<A>.self) }
        return make(tags[index])
    }

    /// Binds `Ring<T[i]>` to a constructor of `Ring<T[(i + 1) % length]>`, for i in 0..<length.
    static func bind(_ binder: Binder, length: Int, scope: Scope) {
        func link<A: Hunt17Tag, B: Hunt17Tag>(_: A.Type, _: B.Type) {
            binder.bind(Hunt17Ring<A>.self).to { (_: Hunt17Ring<B>) in Hunt17Ring<A>() }.in(scope)
        }
        func open<A: Hunt17Tag>(_ a: A.Type, _ b: any Hunt17Tag.Type) { link(a, b) }
        for index in 0..<length { open(tags[index], tags[(index + 1) % length]) }
    }

    /// `App -> R0 -> R1 -> ... -> R(length-1) -> R0`.
    static func expectedPath(length: Int, root: Bool = true) -> [BindingKey] {
        (root ? [BindingKey(Hunt17RingApp.self)] : []) + (0..<length).map(key) + [key(0)]
    }
}

/// Checks a cycle error: code, key, the whole path, the loop at both ends, the `cycle:` line and a hint.
func hunt17ExpectCycle(
    _ error: ProvisionError?, path: [BindingKey], sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    #expect(error?.code == .cycle, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.path == path, "path: \(error?.pathDescription ?? "")", sourceLocation: sourceLocation)
    #expect(error?.key == path.last, sourceLocation: sourceLocation)
    guard let last = path.last, let start = path.firstIndex(of: last) else { return }
    let loop = path[start...].map(\.description).joined(separator: " -> ")
    #expect(
        error?.description.contains("\n  cycle: \(loop)\n") == true, "\(error?.description ?? "")",
        sourceLocation: sourceLocation)
    #expect(error?.message.contains("\(last) depends on itself") == true, sourceLocation: sourceLocation)
    #expect(error?.hint.isEmpty == false, sourceLocation: sourceLocation)
}

struct Hunt17HolderA: Sendable {
    init(b: Hunt17HolderB) {}
}
struct Hunt17HolderB: Sendable {
    init(c: Hunt17HolderC) {}
}
/// Closes A -> B -> C -> A through a Provider: legal, and a cycle only if get() runs during A's build.
final class Hunt17HolderC: Sendable {
    let a: Provider<Hunt17HolderA>
    init(a: Provider<Hunt17HolderA>) { self.a = a }
}

/// The same ring where C calls its provider in its initializer: a real cycle the validator can't see.
final class Hunt17EagerC: Sendable {
    init(a: Provider<Hunt17EagerA>) throws {
        _ = try a.get()
    }
}
struct Hunt17EagerA: Sendable {
    init(b: Hunt17EagerB) {}
}
struct Hunt17EagerB: Sendable {
    init(c: Hunt17EagerC) {}
}

final class Hunt17LazyC: Sendable {
    init(a: Lazy<Hunt17LazyA>) throws {
        _ = try a.value
    }
}
struct Hunt17LazyA: Sendable {
    init(b: Hunt17LazyC) {}
}

struct Hunt17Log: Sendable {}
struct Hunt17Left: Sendable {
    init(log: Hunt17Log, again: Hunt17Log) {}
}
struct Hunt17Mid: Sendable {
    init(log: Hunt17Log) {}
}
struct Hunt17Right: Sendable {
    init(mid: Hunt17Mid, log: Hunt17Log) {}
}
struct Hunt17Diamond: Sendable {
    init(left: Hunt17Left, right: Hunt17Right, log: Hunt17Log) {}
}

@Suite("Hunt17: cycles and false cycles", .timeLimit(.minutes(1)))
struct Hunt17CycleTests {
    @Test(
        "a constructor ring of length 1...5 under a root, found by validation at creation",
        arguments: 1...5, [Scope.transient, .singleton])
    func ringByValidation(length: Int, scope: Scope) {
        let error = hunt17Bounded { () throws(ProvisionError) in
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt17RingApp.self).to(Hunt17RingApp.init(first:))
                    Hunt17Rings.bind(binder, length: length, scope: scope)
                })
        }
        #expect(error?.code == .validationFailed)
        let cycles = error?.underlyingErrors.filter { $0.code == ProvisionError.Code.cycle } ?? []
        #expect(cycles.count == 1, "\(error?.description ?? "")")
        hunt17ExpectCycle(cycles.first, path: Hunt17Rings.expectedPath(length: length))
    }

    @Test("a ring of length 1...5 that nothing else depends on is still a cycle, reported once", arguments: 1...5)
    func rootlessRing(length: Int) {
        let error = hunt17Bounded { () throws(ProvisionError) in
            _ = try Injector(ClosureModule { Hunt17Rings.bind($0, length: length, scope: .transient) })
        }
        #expect(error?.code == .validationFailed)
        let cycles = error?.underlyingErrors.filter { $0.code == ProvisionError.Code.cycle } ?? []
        // QUESTION: one ring is one problem; reporting it once per member would list the same loop k times.
        #expect(cycles.count == 1, "\(error?.description ?? "")")
        let cycle = cycles.first
        #expect(cycle?.path.count == length + 1)
        #expect(cycle?.path.first == cycle?.path.last)
        #expect(Set(cycle?.path ?? []) == Set((0..<length).map(Hunt17Rings.key)))
    }

    @Test(
        "a constructor ring of length 1...5 requested without validation: cycle, never a hang",
        arguments: 1...5, [Scope.transient, .singleton, .scoped])
    func ringAtRequest(length: Int, scope: Scope) throws {
        let injector = try hunt17Unvalidated { binder in
            binder.bind(Hunt17RingApp.self).to(Hunt17RingApp.init(first:))
            Hunt17Rings.bind(binder, length: length, scope: scope)
        }
        let error = hunt17Bounded { () throws(ProvisionError) in
            if scope == .scoped {
                _ = try injector.makeScope().get(Hunt17RingApp.self)
            } else {
                _ = try injector.get(Hunt17RingApp.self)
            }
        }
        hunt17ExpectCycle(error, path: Hunt17Rings.expectedPath(length: length))
        // Asked again, the same error: nothing half-built was cached.
        let again = hunt17Bounded { () throws(ProvisionError) in
            if scope == .scoped {
                _ = try injector.makeScope().get(Hunt17RingApp.self)
            } else {
                _ = try injector.get(Hunt17RingApp.self)
            }
        }
        hunt17ExpectCycle(again, path: Hunt17Rings.expectedPath(length: length))
    }

    @Test("a closure ring of named keys of length 1...5: cycle with the loop at both ends", arguments: 1...5)
    func namedClosureRing(length: Int) throws {
        let injector = try hunt17Unvalidated { binder in
            binder.bind(Hunt17Log.self).to { resolver in try resolver.get(Hunt17Log.self, named: "n0") }
            for index in 0..<length {
                let next = "n\((index + 1) % length)"
                binder.bind(Hunt17Log.self, named: "n\(index)").to { resolver in
                    try resolver.get(Hunt17Log.self, named: next)
                }.in(index % 2 == 0 ? .singleton : .transient)
            }
        }
        let error = hunt17Bounded { () throws(ProvisionError) in _ = try injector.get(Hunt17Log.self) }
        let loop = (0..<length).map { BindingKey(Hunt17Log.self, named: "n\($0)") }
        hunt17ExpectCycle(error, path: [BindingKey(Hunt17Log.self)] + loop + [loop[0]])
    }

    @Test("a Provider closing A -> B -> C -> A is legal: validated, resolved, the provider gives A")
    func providerBreaksRing() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt17HolderA.self).to(Hunt17HolderA.init(b:)).in(.singleton)
                binder.bind(Hunt17HolderB.self).to(Hunt17HolderB.init(c:))
                binder.bind(Hunt17HolderC.self).to(Hunt17HolderC.init(a:)).in(.singleton)
            })
        let error = hunt17Bounded { () throws(ProvisionError) in
            _ = try injector.get(Hunt17HolderA.self)
            _ = try injector.get(Hunt17HolderC.self).a.get()
        }
        #expect(error == nil, "\(String(describing: error))")
    }

    @Test("a Provider called inside the initializer that closes A -> B -> C -> A: cycle with the whole path")
    func providerCalledDuringBuild() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt17EagerA.self).to(Hunt17EagerA.init(b:)).in(.singleton)
                binder.bind(Hunt17EagerB.self).to(Hunt17EagerB.init(c:))
                binder.bind(Hunt17EagerC.self).to(Hunt17EagerC.init(a:))
            })
        let error = hunt17Bounded { () throws(ProvisionError) in _ = try injector.get(Hunt17EagerA.self) }
        let a = BindingKey(Hunt17EagerA.self)
        hunt17ExpectCycle(error, path: [a, BindingKey(Hunt17EagerB.self), BindingKey(Hunt17EagerC.self), a])
    }

    @Test("a Lazy read inside the initializer that closes A -> C -> A: cycle, never a hang")
    func lazyReadDuringBuild() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt17LazyA.self).to(Hunt17LazyA.init(b:)).in(.singleton)
                binder.bind(Hunt17LazyC.self).to(Hunt17LazyC.init(a:))
            })
        let error = hunt17Bounded { () throws(ProvisionError) in _ = try injector.get(Hunt17LazyA.self) }
        #expect(error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.path.first == BindingKey(Hunt17LazyA.self))
        #expect(error?.path.last == BindingKey(Hunt17LazyA.self))
        #expect(error?.path.contains(BindingKey(Hunt17LazyC.self)) == true, "\(error?.pathDescription ?? "")")
    }

    @Test(
        "a diamond whose shared leaf is requested twice by one parent and on every path: no cycle",
        arguments: [Scope.transient, .singleton])
    func diamondIsNoCycle(scope: Scope) throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt17Log.self).to { Hunt17Log() }.in(scope)
            binder.bind(Hunt17Left.self).to(Hunt17Left.init(log:again:)).in(scope)
            binder.bind(Hunt17Mid.self).to(Hunt17Mid.init(log:))
            binder.bind(Hunt17Right.self).to(Hunt17Right.init(mid:log:)).in(scope)
            binder.bind(Hunt17Diamond.self).to(Hunt17Diamond.init(left:right:log:))
        }
        let error = hunt17Bounded { () throws(ProvisionError) in
            let injector = try Injector(module)
            _ = try injector.get(Hunt17Diamond.self)
            #expect(injector.validationReport().problems.isEmpty)
        }
        #expect(error == nil, "\(String(describing: error))")
    }

    @Test("a closure resolving its own type's optional is a cycle, not a silent nil")
    func optionalOfItself() throws {
        let injector = try hunt17Unvalidated { binder in
            binder.bind(Hunt17Log.self).to { resolver in
                _ = try resolver.get(Hunt17Log?.self)
                return Hunt17Log()
            }
        }
        let error = hunt17Bounded { () throws(ProvisionError) in _ = try injector.get(Hunt17Log.self) }
        #expect(error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.path.first == BindingKey(Hunt17Log.self))
        #expect(error?.path.last == BindingKey(Hunt17Log.self), "\(error?.pathDescription ?? "")")
    }

    @Test("overriding a leaf with one that needs the root closes a cycle: cycle, in the derived injector")
    func overridingClosesCycle() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt17RingApp.self).to(Hunt17RingApp.init(first:))
                binder.bind(Hunt17Ring<Hunt17T0>.self).to { (_: Hunt17Ring<Hunt17T1>) in Hunt17Ring<Hunt17T0>() }
                binder.bind(Hunt17Ring<Hunt17T1>.self).to { Hunt17Ring<Hunt17T1>() }
            })
        let error = hunt17Bounded { () throws(ProvisionError) in
            let derived = try app.overriding { binder in
                binder.bind(Hunt17Ring<Hunt17T1>.self).to { (_: Hunt17RingApp) in Hunt17Ring<Hunt17T1>() }
            }
            _ = try derived.get(Hunt17RingApp.self)
        }
        let found =
            error?.code == .validationFailed
            ? error?.underlyingErrors.first { $0.code == ProvisionError.Code.cycle } : error
        // The loop may be entered at any of its three keys; it must show all three, closed.
        #expect(found?.code == .cycle, "\(String(describing: error))")
        let path = found?.path ?? []
        #expect(path.count == 4 && path.first == path.last, "\(found?.pathDescription ?? "")")
        #expect(Set(path) == [BindingKey(Hunt17RingApp.self), Hunt17Rings.key(0), Hunt17Rings.key(1)])
        #expect(found?.description.contains("cycle: \(found?.pathDescription ?? "")") == true)
        // The original is unchanged.
        #expect(throws: Never.self) { _ = try app.get(Hunt17RingApp.self) }
    }

    @Test("a module added with `with` that closes a cycle through an unvalidated original: cycle")
    func withClosesCycle() throws {
        let app = try hunt17Unvalidated { binder in
            binder.bind(Hunt17RingApp.self).to(Hunt17RingApp.init(first:))
            binder.bind(Hunt17Ring<Hunt17T0>.self).to { (_: Hunt17Ring<Hunt17T1>) in Hunt17Ring<Hunt17T0>() }
        }
        let error = hunt17Bounded { () throws(ProvisionError) in
            let derived = try app.with(
                ClosureModule { binder in
                    binder.bind(Hunt17Ring<Hunt17T1>.self).to { (_: Hunt17Ring<Hunt17T0>) in Hunt17Ring<Hunt17T1>() }
                })
            _ = try derived.get(Hunt17RingApp.self)
        }
        let found =
            error?.code == .validationFailed
            ? error?.underlyingErrors.first { $0.code == ProvisionError.Code.cycle } : error
        hunt17ExpectCycle(found, path: Hunt17Rings.expectedPath(length: 2))
    }
}
