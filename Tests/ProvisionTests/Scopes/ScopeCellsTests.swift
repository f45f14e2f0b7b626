import Testing

@testable import Provision

/// A scope's table of cells: an array for the first few scoped instances, a dictionary past that.
@Suite("Scope cells")
struct ScopeCellsTests {
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

    @Test("every cell is found by its identity, before and after the table outgrows its array")
    func findsEveryCell() {
        var cells = ScopeCells()
        let markers = (0..<(ScopeCells.arrayLimit * 3)).map { _ in Marker() }
        for (index, marker) in markers.enumerated() {
            #expect(cells[ObjectIdentifier(marker)] == nil)
            cells.insert(marker, for: ObjectIdentifier(marker))
            // Every cell inserted so far is still found, whichever form the table has now.
            let found = markers[...index].allSatisfy { cells[ObjectIdentifier($0)] === $0 }
            #expect(found, "after \(index + 1) cells")
        }
        #expect(cells[ObjectIdentifier(Marker())] == nil)
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
