import Testing

@testable import Provision

/// The table of a scope's cells and of a stripe's gates: an inline entry, an array for the next few, a
/// dictionary past that.
@Suite("Identity table")
struct IdentityTableTests {
    private final class Marker: Sendable {}

    /// A scoped instance that logs its disposal.
    private final class Item: Disposable, Sendable {
        let number: Int
        let log: EventLog

        init(number: Int, log: EventLog) {
            self.number = number
            self.log = log
        }

        func dispose() {
            log.append("\(number)")
        }
    }

    @Test("every entry is found by its identity, before and after the table outgrows its array")
    func findsEveryEntry() {
        var table = IdentityTable<Marker>()
        let markers = (0..<(IdentityTable<Marker>.arrayLimit * 3)).map { _ in Marker() }
        for (index, marker) in markers.enumerated() {
            #expect(table[ObjectIdentifier(marker)] == nil)
            table[ObjectIdentifier(marker)] = marker
            // Every entry stored so far is still found, whichever form the table has now.
            let found = markers[...index].allSatisfy { table[ObjectIdentifier($0)] === $0 }
            #expect(found, "after \(index + 1) entries")
        }
        #expect(table[ObjectIdentifier(Marker())] == nil)
        #expect(table.values.count == markers.count)
    }

    @Test(
        "entries removed in any order, in every form of the table, are gone and leave the others",
        arguments: [1, 2, 16, 17, 40]
    )
    func removesEntries(count: Int) {
        var table = IdentityTable<Int>()
        let markers = (0..<count).map { _ in Marker() }
        for (index, marker) in markers.enumerated() { table[ObjectIdentifier(marker)] = index }
        // Replacing a value keeps one entry for the key.
        if let marker = markers.first { table[ObjectIdentifier(marker)] = -1 }
        var remaining = Dictionary(uniqueKeysWithValues: markers.enumerated().map { (ObjectIdentifier($1), $0) })
        if let marker = markers.first { remaining[ObjectIdentifier(marker)] = -1 }
        for marker in markers.shuffled() {
            let id = ObjectIdentifier(marker)
            let removed = table.removeValue(forKey: id)
            #expect(removed == remaining.removeValue(forKey: id))
            #expect(table[id] == nil)
            #expect(table.removeValue(forKey: id) == nil, "removed once")
            let othersFound = remaining.allSatisfy { table[$0.key] == $0.value }
            #expect(othersFound, "\(remaining.count) entries left")
        }
        // Empty again: the table takes new entries as a fresh one would.
        let marker = Marker()
        table[ObjectIdentifier(marker)] = 7
        #expect(table[ObjectIdentifier(marker)] == 7)
    }

    @Test("a key set to nil is removed; setting it again stores it once")
    func settingNilRemoves() {
        var table = IdentityTable<Int>()
        let (a, b) = (Marker(), Marker())
        table[ObjectIdentifier(a)] = 1
        table[ObjectIdentifier(b)] = 2
        table[ObjectIdentifier(a)] = nil
        #expect(table[ObjectIdentifier(a)] == nil)
        #expect(table[ObjectIdentifier(b)] == 2)
        table[ObjectIdentifier(a)] = 3
        table[ObjectIdentifier(a)] = 4
        #expect(table.removeValue(forKey: ObjectIdentifier(a)) == 4)
        #expect(table[ObjectIdentifier(a)] == nil)
    }

    @Test(
        "24 scopes building one scoped binding at once: each scope keeps its own gate, the stripe none; each builds exactly once, and a second thread in each gets its instance"
    )
    func manyScopesBuildingAtOnce() throws {
        let count = IdentityTable<GateEntry>.arrayLimit + 8
        let builds = Counter()
        // Every builder stays in its factory until all of them are in theirs, then looks at the gates
        // (all `count` builds are in flight), then waits for every other builder to have looked.
        let allInside = Barrier(count: count)
        let allLooked = Barrier(count: count)
        let seen = Locked<(inStripe: [Int], inScopes: [Int])>(([], []))
        let world = Locked<(Injector, [ServiceScope])?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Marker.self).to { _ in
                    builds.increment()
                    allInside.arriveAndWait()
                    if let (injector, scopes) = world.withLock({ $0 }) {
                        let stripe = injector.registry.stripe(for: BindingKey(Marker.self))
                        let inStripe = stripe.withState { $0.gates.values.count }
                        let inScopes = scopes.map { scope in scope.withGates { $0.values.count } }.reduce(0, +)
                        seen.withLock { seen in
                            seen.inStripe.append(inStripe)
                            seen.inScopes.append(inScopes)
                        }
                    }
                    allLooked.arriveAndWait()
                    return Marker()
                }.in(.scoped)
            })
        let scopes = (0..<count).map { _ in injector.makeScope() }
        world.withLock { $0 = (injector, scopes) }
        let got = Locked([Int: [ObjectIdentifier]]())
        // Two threads per scope: one builds, the other waits at that build's gate (or builds, and the
        // first waits).
        let finished = runThreads(count * 2) { index in
            let scope = scopes[index % count]
            let identity = (try? scope.get(Marker.self)).map(ObjectIdentifier.init)
            got.withLock { $0[index % count, default: []].append(contentsOf: identity.map { [$0] } ?? []) }
        }
        #expect(finished)
        #expect(builds.value == count, "one build per scope")
        let perScope = got.withLock { $0 }
        for index in 0..<count {
            let identities = perScope[index] ?? []
            #expect(identities.count == 2 && identities[0] == identities[1], "scope \(index): one instance, twice")
        }
        #expect(Set(perScope.values.compactMap(\.first)).count == count, "every scope its own instance")
        let looked = seen.withLock { $0 }
        #expect(looked.inStripe == Array(repeating: 0, count: count), "no scoped build's gate in the stripe")
        #expect(looked.inScopes == Array(repeating: count, count: count), "one gate in each scope")
        #expect(scopes.allSatisfy { scope in scope.withGates { $0.values.isEmpty } }, "every gate removed")
        for scope in scopes { try scope.close() }
    }

    @Test("a scope with 40 scoped bindings keeps one instance of each and disposes each once, newest first")
    func manyScopedBindings() throws {
        let count = 40
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                for number in 0..<count {
                    binder.bind(Item.self, named: "item \(number)").to { _ in Item(number: number, log: log) }
                        .in(.scoped)
                }
            })
        let scope = injector.makeScope()
        let other = injector.makeScope()
        // Built in a shuffled order, so the disposal order tells the build order apart from the binding order.
        let order = Array(0..<count).shuffled()
        var first: [Int: Item] = [:]
        for number in order {
            first[number] = try scope.get(Item.self, named: "item \(number)")
        }
        for number in 0..<count {
            let again = try scope.get(Item.self, named: "item \(number)")
            let elsewhere = try other.get(Item.self, named: "item \(number)")
            #expect(again === first[number], "item \(number): one instance per scope")
            #expect(elsewhere !== first[number], "item \(number): another scope's instance")
            #expect(again.number == number)
        }
        try scope.close()
        #expect(log.all == order.reversed().map(String.init))
        try other.close()
        #expect(log.all.count == count * 2)
    }
}
