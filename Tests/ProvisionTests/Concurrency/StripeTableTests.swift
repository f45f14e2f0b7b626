import Testing

@testable import Provision

/// The open-addressing table behind each registry stripe: how full it may get, how it grows, and that
/// every key is found after growing, including keys whose probe sequences collide.
@Suite("Stripe table")
struct StripeTableTests {
    private final class Box {}

    @Test(
        "a table is at most three quarters full: room for 3 keys in 4 slots, 768 in 1,024",
        arguments: [
            (0, 4), (3, 4), (4, 8), (6, 8), (7, 16), (768, 1_024), (769, 2_048),
        ])
    func capacity(keys: Int, slots: Int) {
        let table = StripeTable(roomFor: keys)
        #expect(table.capacity == slots)
        #expect(table.hasRoom(for: keys))
        #expect(!table.hasRoom(for: slots * 3 / 4 + 1))
    }

    @Test("growing doubles at least, and keeps every key, named and unnamed, findable")
    func growing() {
        let boxes = (0..<1_000).map { _ in Box() }
        // One type under 1,000 names: every key's id is the same word, and only the names tell the keys
        // apart (the slot compares the name once the id matches).
        let keys = (0..<1_000).map { BindingKey(Int.self, named: "key \($0)") }
        var table = StripeTable(roomFor: 0)
        var capacities: [Int] = []
        for (index, key) in keys.enumerated() {
            if !table.hasRoom(for: index + 1) {
                let grown = table.growing(toHold: index + 1)
                #expect(grown.capacity >= table.capacity * 2)
                table = grown
                capacities.append(table.capacity)
            }
            #expect(table.insert(Unmanaged.passUnretained(boxes[index]), for: key, publishes: true) == nil)
        }
        #expect(capacities == [8, 16, 32, 64, 128, 256, 512, 1_024, 2_048])
        var found = 0
        for (index, key) in keys.enumerated()
        where table.node(for: key)?.toOpaque() == Unmanaged.passUnretained(boxes[index]).toOpaque() {
            found += 1
        }
        #expect(found == 1_000)
        // A key bound already is returned, not inserted twice; an absent one is a miss.
        #expect(
            table.insert(Unmanaged.passUnretained(boxes[1]), for: keys[0], publishes: true)?.toOpaque()
                == Unmanaged.passUnretained(boxes[0]).toOpaque())
        #expect(table.node(for: BindingKey(Int.self, named: "key 1000")) == nil)
        #expect(table.node(for: BindingKey(Int.self)) == nil)
        withExtendedLifetime(boxes) {}
    }

    @Test("a full table (three quarters) still ends every probe at an empty slot: misses terminate")
    func missesInAFullTable() {
        let boxes = (0..<48).map { _ in Box() }
        let table = StripeTable(roomFor: 48)
        #expect(table.capacity == 64)
        for index in 0..<48 {
            table.insert(
                Unmanaged.passUnretained(boxes[index]), for: BindingKey(String.self, named: "\(index)"), publishes: true
            )
        }
        #expect(!table.hasRoom(for: 49))
        for index in 48..<1_048 {
            #expect(table.node(for: BindingKey(String.self, named: "\(index)")) == nil)
        }
        withExtendedLifetime(boxes) {}
    }
}
