import Dispatch
import Testing

@testable import Provision

// Hunt 29A: the awake hook (B-OBJ-14): depth-first order across constructor and property edges, a
// hook that resolves from the injector (Objection's default injector) while its singleton is being
// built, and modules installed while other threads resolve.

final class Hunt29AHookLog: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Hunt29AHookLog")
    private var entries: [String] = []
    func add(_ entry: String) { queue.sync { entries.append(entry) } }
    var all: [String] { queue.sync { entries } }
}

final class Hunt29AWheel: PropertyInjectable, @unchecked Sendable {
    static let log = Hunt29AHookLog()
    init() {}
    func didInjectDependencies() { Hunt29AWheel.log.add("wheel") }
}

final class Hunt29AAxle: PropertyInjectable, @unchecked Sendable {
    var wheel: Hunt29AWheel?
    let bolt: Hunt29AEngine
    init(bolt: Hunt29AEngine) { self.bolt = bolt }
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AAxle.wheel)] }
    func didInjectDependencies() { Hunt29AWheel.log.add("axle:\(wheel != nil)") }
}

final class Hunt29AChassis: PropertyInjectable, @unchecked Sendable {
    var rear: Hunt29AAxle?
    let front: Hunt29AAxle
    init(front: Hunt29AAxle) { self.front = front }
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AChassis.rear)] }
    func didInjectDependencies() { Hunt29AWheel.log.add("chassis:\(rear != nil)") }
}

final class Hunt29ASelfLooking: PropertyInjectable, @unchecked Sendable {
    let box: Hunt29AInjectorBox
    var inner: Result<Hunt29ASelfLooking, ProvisionError>?
    init(box: Hunt29AInjectorBox) { self.box = box }
    func didInjectDependencies() {
        // Objection code often reached for the default injector from awakeFromObjection.
        guard let injector = box.injector else { return }
        do { inner = .success(try injector.get(Hunt29ASelfLooking.self)) } catch { inner = .failure(error) }
    }
}

final class Hunt29AInjectorBox: @unchecked Sendable {
    var injector: Injector?
}

@Suite("Hunt29A: hooks and running injectors")
struct Hunt29AHookTests {
    // Hooks run once each, dependencies first, after the object's own properties are set.
    @Test func hookOrderDepthFirst() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
                binder.bind(Hunt29AWheel.self).to(Hunt29AWheel.init)
                binder.bind(Hunt29AAxle.self).to(Hunt29AAxle.init(bolt:))
                binder.bind(Hunt29AChassis.self).to(Hunt29AChassis.init(front:))
            })
        let before = Hunt29AWheel.log.all.count
        let chassis = try injector.get(Hunt29AChassis.self)
        let log = Array(Hunt29AWheel.log.all.dropFirst(before))
        #expect(log == ["wheel", "axle:true", "wheel", "axle:true", "chassis:true"])
        #expect(chassis.rear !== chassis.front)
    }

    // A singleton's hook asks the injector for that same singleton: it gets an error (the instance is
    // not published before its hook ran), never a hang, and the outer request succeeds.
    @Test func hookResolvingItsOwnSingleton() throws {
        let box = Hunt29AInjectorBox()
        let constructed = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AInjectorBox.self).toInstance(box)
                binder.bind(Hunt29ASelfLooking.self).to(Hunt29ASelfLooking.init(box:)).in(.singleton)
            })
        box.injector = constructed
        let outcome: Result<Hunt29ASelfLooking, ProvisionError>?? = Hunt29ARun.bounded {
            Result { () throws(ProvisionError) -> Hunt29ASelfLooking in try constructed.get(Hunt29ASelfLooking.self) }
        }
        let result = try #require(outcome ?? nil, "the request hung")
        let looking = try result.get()
        // "singleton or scoped ... set once, before the instance is published": the hook's own request
        // for the singleton it belongs to can't be given that instance; it is a cycle.
        switch looking.inner {
        case .failure(let error): #expect(error.code == .cycle, "\(error)")
        case .success(let other):
            Issue.record("the hook got \(other === looking ? "its own unpublished" : "another") instance")
        case nil: Issue.record("the hook did not run")
        }
        #expect(try constructed.get(Hunt29ASelfLooking.self) === looking)
    }

    // Modules installed (plugins) while other threads resolve: every resolution succeeds, and after the
    // install every thread sees the new binding.
    @Test func installWhileResolving() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
            })
        let engine = try injector.get(Hunt29AEngine.self)
        let threads = 4
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let wrong = Hunt29ACounter()
        for _ in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                for _ in 0..<500 {
                    if (try? injector.get(Hunt29AEngine.self)) !== engine { _ = wrong.next() }
                }
            }
        }
        for _ in 0..<threads { start.signal() }
        for index in 0..<20 {
            try injector.install(
                ClosureModule { binder in
                    binder.bind(Hunt29ABrakes.self, named: "p\(index)").to(Hunt29ABrakes.init).in(.singleton)
                })
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(wrong.value == 0)
        for index in 0..<20 {
            let brakes = try injector.get(Hunt29ABrakes.self, named: "p\(index)")
            #expect(brakes === (try injector.get(Hunt29ABrakes.self, named: "p\(index)")))
        }
        // A derived injector configures the installed modules again (B-OBJ-30).
        let derived = try injector.with(ClosureModule { _ in })
        #expect(derived.hasBinding(for: Hunt29ABrakes.self, named: "p19"))
        #expect(try derived.get(Hunt29ABrakes.self, named: "p19") !== injector.get(Hunt29ABrakes.self, named: "p19"))
    }
}
