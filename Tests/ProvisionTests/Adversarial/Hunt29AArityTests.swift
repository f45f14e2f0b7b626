import Dispatch
import Testing

@testable import Provision

// Hunt 29A: constructor bindings of every arity (0 to 14 parameters) through `to(Type.init(...))`,
// as Objection's `objection_requires` classes become constructor-injected Swift types. Above twelve
// parameters the parameter-pack form of `to(_:)` is the one the compiler picks.

final class Hunt29AD1: Sendable {}
final class Hunt29AD2: Sendable {}
final class Hunt29AD3: Sendable {}
final class Hunt29AD4: Sendable {}
final class Hunt29AD5: Sendable {}
final class Hunt29AD6: Sendable {}
final class Hunt29AD7: Sendable {}
final class Hunt29AD8: Sendable {}
final class Hunt29AD9: Sendable {}
final class Hunt29AD10: Sendable {}
final class Hunt29AD11: Sendable {}
final class Hunt29AD12: Sendable {}
final class Hunt29AD13: Sendable {}
final class Hunt29AD14: Sendable {}
final class Hunt29AArity0: Sendable {
    init() {
        // no dependencies
    }
    var parts: [AnyObject] { [] }
}
final class Hunt29AArity1: Sendable {
    let d1: Hunt29AD1
    init(d1: Hunt29AD1) {
        self.d1 = d1
    }
    var parts: [AnyObject] { [d1] }
}
final class Hunt29AArity2: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    init(d1: Hunt29AD1, d2: Hunt29AD2) {
        self.d1 = d1
        self.d2 = d2
    }
    var parts: [AnyObject] { [d1, d2] }
}
final class Hunt29AArity3: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    init(d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
    }
    var parts: [AnyObject] { [d1, d2, d3] }
}
final class Hunt29AArity4: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    init(d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
    }
    var parts: [AnyObject] { [d1, d2, d3, d4] }
}
final class Hunt29AArity5: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    init(d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5] }
}
final class Hunt29AArity6: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    init(d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6] }
}
final class Hunt29AArity7: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    init(d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7] }
}
final class Hunt29AArity8: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8] }
}
final class Hunt29AArity9: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9] }
}
final class Hunt29AArity10: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    let d10: Hunt29AD10
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
        self.d10 = d10
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10] }
}
final class Hunt29AArity11: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    let d10: Hunt29AD10
    let d11: Hunt29AD11
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10, d11: Hunt29AD11
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
        self.d10 = d10
        self.d11 = d11
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11] }
}
final class Hunt29AArity12: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    let d10: Hunt29AD10
    let d11: Hunt29AD11
    let d12: Hunt29AD12
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10, d11: Hunt29AD11, d12: Hunt29AD12
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
        self.d10 = d10
        self.d11 = d11
        self.d12 = d12
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12] }
}
final class Hunt29AArity13: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    let d10: Hunt29AD10
    let d11: Hunt29AD11
    let d12: Hunt29AD12
    let d13: Hunt29AD13
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10, d11: Hunt29AD11, d12: Hunt29AD12, d13: Hunt29AD13
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
        self.d10 = d10
        self.d11 = d11
        self.d12 = d12
        self.d13 = d13
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13] }
}
final class Hunt29AArity14: Sendable {
    let d1: Hunt29AD1
    let d2: Hunt29AD2
    let d3: Hunt29AD3
    let d4: Hunt29AD4
    let d5: Hunt29AD5
    let d6: Hunt29AD6
    let d7: Hunt29AD7
    let d8: Hunt29AD8
    let d9: Hunt29AD9
    let d10: Hunt29AD10
    let d11: Hunt29AD11
    let d12: Hunt29AD12
    let d13: Hunt29AD13
    let d14: Hunt29AD14
    init(
        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6, d7: Hunt29AD7,
        d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10, d11: Hunt29AD11, d12: Hunt29AD12, d13: Hunt29AD13,
        d14: Hunt29AD14
    ) {
        self.d1 = d1
        self.d2 = d2
        self.d3 = d3
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.d8 = d8
        self.d9 = d9
        self.d10 = d10
        self.d11 = d11
        self.d12 = d12
        self.d13 = d13
        self.d14 = d14
    }
    var parts: [AnyObject] { [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14] }
}

enum Hunt29AArity {
    /// Binds every dependency but `skipping` (1-based), transient.
    static func dependencies(_ binder: Binder, skipping: Int? = nil) {
        if skipping != 1 { binder.bind(Hunt29AD1.self).to(Hunt29AD1.init) }
        if skipping != 2 { binder.bind(Hunt29AD2.self).to(Hunt29AD2.init) }
        if skipping != 3 { binder.bind(Hunt29AD3.self).to(Hunt29AD3.init) }
        if skipping != 4 { binder.bind(Hunt29AD4.self).to(Hunt29AD4.init) }
        if skipping != 5 { binder.bind(Hunt29AD5.self).to(Hunt29AD5.init) }
        if skipping != 6 { binder.bind(Hunt29AD6.self).to(Hunt29AD6.init) }
        if skipping != 7 { binder.bind(Hunt29AD7.self).to(Hunt29AD7.init) }
        if skipping != 8 { binder.bind(Hunt29AD8.self).to(Hunt29AD8.init) }
        if skipping != 9 { binder.bind(Hunt29AD9.self).to(Hunt29AD9.init) }
        if skipping != 10 { binder.bind(Hunt29AD10.self).to(Hunt29AD10.init) }
        if skipping != 11 { binder.bind(Hunt29AD11.self).to(Hunt29AD11.init) }
        if skipping != 12 { binder.bind(Hunt29AD12.self).to(Hunt29AD12.init) }
        if skipping != 13 { binder.bind(Hunt29AD13.self).to(Hunt29AD13.init) }
        if skipping != 14 { binder.bind(Hunt29AD14.self).to(Hunt29AD14.init) }
    }

    static let unvalidated = Injector.Configuration(validatesOnCreation: false)
}

@Suite("Hunt29A: constructor arities 0...14")
struct Hunt29AArityTests {

    @Test func arity0TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity0.self).to(Hunt29AArity0.init)
            })
        let a = try transient.get(Hunt29AArity0.self)
        let b = try transient.get(Hunt29AArity0.self)
        #expect(a !== b)
        #expect(a.parts.count == 0)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity0.self).to(Hunt29AArity0.init).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity0.self) === singleton.get(Hunt29AArity0.self))
    }

    @Test func arity1TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity1.self).to(Hunt29AArity1.init(d1:))
            })
        let a = try transient.get(Hunt29AArity1.self)
        let b = try transient.get(Hunt29AArity1.self)
        #expect(a !== b)
        #expect(a.parts.count == 1)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity1.self).to(Hunt29AArity1.init(d1:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity1.self) === singleton.get(Hunt29AArity1.self))
    }

    @Test(arguments: 1...1) func arity1MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity1.self).to(Hunt29AArity1.init(d1:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity1.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity1 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity1 -> Hunt29AD\(missing)")
    }

    @Test func arity2TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity2.self).to(Hunt29AArity2.init(d1:d2:))
            })
        let a = try transient.get(Hunt29AArity2.self)
        let b = try transient.get(Hunt29AArity2.self)
        #expect(a !== b)
        #expect(a.parts.count == 2)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity2.self).to(Hunt29AArity2.init(d1:d2:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity2.self) === singleton.get(Hunt29AArity2.self))
    }

    @Test(arguments: 1...2) func arity2MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity2.self).to(Hunt29AArity2.init(d1:d2:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity2.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity2 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity2 -> Hunt29AD\(missing)")
    }

    @Test func arity3TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity3.self).to(Hunt29AArity3.init(d1:d2:d3:))
            })
        let a = try transient.get(Hunt29AArity3.self)
        let b = try transient.get(Hunt29AArity3.self)
        #expect(a !== b)
        #expect(a.parts.count == 3)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity3.self).to(Hunt29AArity3.init(d1:d2:d3:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity3.self) === singleton.get(Hunt29AArity3.self))
    }

    @Test(arguments: 1...3) func arity3MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity3.self).to(Hunt29AArity3.init(d1:d2:d3:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity3.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity3 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity3 -> Hunt29AD\(missing)")
    }

    @Test func arity4TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity4.self).to(Hunt29AArity4.init(d1:d2:d3:d4:))
            })
        let a = try transient.get(Hunt29AArity4.self)
        let b = try transient.get(Hunt29AArity4.self)
        #expect(a !== b)
        #expect(a.parts.count == 4)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity4.self).to(Hunt29AArity4.init(d1:d2:d3:d4:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity4.self) === singleton.get(Hunt29AArity4.self))
    }

    @Test(arguments: 1...4) func arity4MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity4.self).to(Hunt29AArity4.init(d1:d2:d3:d4:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity4.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity4 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity4 -> Hunt29AD\(missing)")
    }

    @Test func arity5TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity5.self).to(Hunt29AArity5.init(d1:d2:d3:d4:d5:))
            })
        let a = try transient.get(Hunt29AArity5.self)
        let b = try transient.get(Hunt29AArity5.self)
        #expect(a !== b)
        #expect(a.parts.count == 5)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity5.self).to(Hunt29AArity5.init(d1:d2:d3:d4:d5:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity5.self) === singleton.get(Hunt29AArity5.self))
    }

    @Test(arguments: 1...5) func arity5MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity5.self).to(Hunt29AArity5.init(d1:d2:d3:d4:d5:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity5.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity5 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity5 -> Hunt29AD\(missing)")
    }

    @Test func arity6TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity6.self).to(Hunt29AArity6.init(d1:d2:d3:d4:d5:d6:))
            })
        let a = try transient.get(Hunt29AArity6.self)
        let b = try transient.get(Hunt29AArity6.self)
        #expect(a !== b)
        #expect(a.parts.count == 6)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity6.self).to(Hunt29AArity6.init(d1:d2:d3:d4:d5:d6:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity6.self) === singleton.get(Hunt29AArity6.self))
    }

    @Test(arguments: 1...6) func arity6MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity6.self).to(Hunt29AArity6.init(d1:d2:d3:d4:d5:d6:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity6.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity6 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity6 -> Hunt29AD\(missing)")
    }

    @Test func arity7TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity7.self).to(Hunt29AArity7.init(d1:d2:d3:d4:d5:d6:d7:))
            })
        let a = try transient.get(Hunt29AArity7.self)
        let b = try transient.get(Hunt29AArity7.self)
        #expect(a !== b)
        #expect(a.parts.count == 7)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity7.self).to(Hunt29AArity7.init(d1:d2:d3:d4:d5:d6:d7:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity7.self) === singleton.get(Hunt29AArity7.self))
    }

    @Test(arguments: 1...7) func arity7MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity7.self).to(Hunt29AArity7.init(d1:d2:d3:d4:d5:d6:d7:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity7.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity7 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity7 -> Hunt29AD\(missing)")
    }

    @Test func arity8TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity8.self).to(Hunt29AArity8.init(d1:d2:d3:d4:d5:d6:d7:d8:))
            })
        let a = try transient.get(Hunt29AArity8.self)
        let b = try transient.get(Hunt29AArity8.self)
        #expect(a !== b)
        #expect(a.parts.count == 8)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity8.self).to(Hunt29AArity8.init(d1:d2:d3:d4:d5:d6:d7:d8:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity8.self) === singleton.get(Hunt29AArity8.self))
    }

    @Test(arguments: 1...8) func arity8MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity8.self).to(Hunt29AArity8.init(d1:d2:d3:d4:d5:d6:d7:d8:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity8.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity8 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity8 -> Hunt29AD\(missing)")
    }

    @Test func arity9TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity9.self).to(Hunt29AArity9.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:))
            })
        let a = try transient.get(Hunt29AArity9.self)
        let b = try transient.get(Hunt29AArity9.self)
        #expect(a !== b)
        #expect(a.parts.count == 9)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity9.self).to(Hunt29AArity9.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity9.self) === singleton.get(Hunt29AArity9.self))
    }

    @Test(arguments: 1...9) func arity9MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity9.self).to(Hunt29AArity9.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity9.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity9 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity9 -> Hunt29AD\(missing)")
    }

    @Test func arity10TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity10.self).to(Hunt29AArity10.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:))
            })
        let a = try transient.get(Hunt29AArity10.self)
        let b = try transient.get(Hunt29AArity10.self)
        #expect(a !== b)
        #expect(a.parts.count == 10)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity10.self).to(Hunt29AArity10.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:)).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity10.self) === singleton.get(Hunt29AArity10.self))
    }

    @Test(arguments: 1...10) func arity10MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity10.self).to(Hunt29AArity10.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity10.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity10 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity10 -> Hunt29AD\(missing)")
    }

    @Test func arity11TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity11.self).to(Hunt29AArity11.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:))
            })
        let a = try transient.get(Hunt29AArity11.self)
        let b = try transient.get(Hunt29AArity11.self)
        #expect(a !== b)
        #expect(a.parts.count == 11)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity11.self).to(Hunt29AArity11.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:)).in(
                    .singleton)
            })
        #expect(try singleton.get(Hunt29AArity11.self) === singleton.get(Hunt29AArity11.self))
    }

    @Test(arguments: 1...11) func arity11MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity11.self).to(Hunt29AArity11.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity11.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity11 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity11 -> Hunt29AD\(missing)")
    }

    @Test func arity12TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity12.self).to(Hunt29AArity12.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:))
            })
        let a = try transient.get(Hunt29AArity12.self)
        let b = try transient.get(Hunt29AArity12.self)
        #expect(a !== b)
        #expect(a.parts.count == 12)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity12.self).to(Hunt29AArity12.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:)).in(
                    .singleton)
            })
        #expect(try singleton.get(Hunt29AArity12.self) === singleton.get(Hunt29AArity12.self))
    }

    @Test(arguments: 1...12) func arity12MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity12.self).to(Hunt29AArity12.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity12.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity12 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity12 -> Hunt29AD\(missing)")
    }

    @Test func arity13TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity13.self).to(Hunt29AArity13.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:))
            })
        let a = try transient.get(Hunt29AArity13.self)
        let b = try transient.get(Hunt29AArity13.self)
        #expect(a !== b)
        #expect(a.parts.count == 13)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity13.self).to(Hunt29AArity13.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:))
                    .in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity13.self) === singleton.get(Hunt29AArity13.self))
    }

    @Test(arguments: 1...13) func arity13MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity13.self).to(Hunt29AArity13.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity13.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity13 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity13 -> Hunt29AD\(missing)")
    }

    @Test func arity14TransientAndSingleton() throws {
        let transient = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity14.self).to(
                    Hunt29AArity14.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:d14:))
            })
        let a = try transient.get(Hunt29AArity14.self)
        let b = try transient.get(Hunt29AArity14.self)
        #expect(a !== b)
        #expect(a.parts.count == 14)
        for (x, y) in zip(a.parts, b.parts) { #expect(ObjectIdentifier(x) != ObjectIdentifier(y)) }
        let singleton = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity14.self).to(
                    Hunt29AArity14.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:d14:)
                ).in(.singleton)
            })
        #expect(try singleton.get(Hunt29AArity14.self) === singleton.get(Hunt29AArity14.self))
    }

    @Test(arguments: 1...14) func arity14MissingParameter(_ missing: Int) throws {
        let module = ClosureModule { binder in
            Hunt29AArity.dependencies(binder, skipping: missing)
            binder.bind(Hunt29AArity14.self).to(Hunt29AArity14.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:d14:))
        }
        let injector = try Injector(modules: [module], configuration: Hunt29AArity.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AArity14.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AArity14 -> Hunt29AD\(missing)")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.count == 1)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AArity14 -> Hunt29AD\(missing)")
    }

    /// Every dependency missing at once: one error listing each of them (B-INJ-05).
    @Test func arity14EveryMissingDependencyListed() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AArity14.self).to(Hunt29AArity14.init(d1:d2:d3:d4:d5:d6:d7:d8:d9:d10:d11:d12:d13:d14:))
        }
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.underlyingErrors.count == 14)
        let paths = Set(creation?.underlyingErrors.map(\.pathDescription) ?? [])
        #expect(paths == Set((1...14).map { "Hunt29AArity14 -> Hunt29AD\($0)" }))
    }

    /// A fourteen-parameter singleton raced by eight threads released together: built once.
    @Test func arity14SingletonRace() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                Hunt29AArity.dependencies(binder)
                binder.bind(Hunt29AArity14.self).to {
                    (
                        d1: Hunt29AD1, d2: Hunt29AD2, d3: Hunt29AD3, d4: Hunt29AD4, d5: Hunt29AD5, d6: Hunt29AD6,
                        d7: Hunt29AD7, d8: Hunt29AD8, d9: Hunt29AD9, d10: Hunt29AD10, d11: Hunt29AD11, d12: Hunt29AD12,
                        d13: Hunt29AD13, d14: Hunt29AD14
                    ) in
                    _ = counter.next()
                    return Hunt29AArity14(
                        d1: d1, d2: d2, d3: d3, d4: d4, d5: d5, d6: d6, d7: d7, d8: d8, d9: d9, d10: d10, d11: d11,
                        d12: d12, d13: d13, d14: d14)
                }.in(.singleton)
            })
        let threads = 8
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let results = Hunt29AResults<Hunt29AArity14>()
        for _ in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                results.add(Result { try injector.get(Hunt29AArity14.self) })
            }
        }
        for _ in 0..<threads { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let values = results.values
        #expect(values.count == threads)
        let first = try values[0].get()
        for value in values { #expect(try value.get() === first) }
        #expect(counter.value == 1)
    }
}

final class Hunt29AResults<T>: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Hunt29AResults")
    private var stored: [Result<T, any Error>] = []
    func add(_ result: Result<T, any Error>) { queue.sync { stored.append(result) } }
    var values: [Result<T, any Error>] { queue.sync { stored } }
}
