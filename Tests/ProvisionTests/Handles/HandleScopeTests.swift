import Synchronization
import Testing

@testable import Provision

// Handles resolve in the injector and the scope they were created in, and reach bindings with arguments.

/// A per-request customer.
private final class ShopCustomer: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// A scoped service holding handles to the scoped customer.
private final class ShopCounter: Sendable {
    let customer: Lazy<ShopCustomer>
    let customers: Provider<ShopCustomer>
    let factory: ObjectFactory
    init(customer: Lazy<ShopCustomer>, customers: Provider<ShopCustomer>, factory: ObjectFactory) {
        self.customer = customer
        self.customers = customers
        self.factory = factory
    }
}

/// A singleton holding a provider of the scoped customer: it belongs to no scope.
private final class CustomerDirectory: Sendable {
    let customers: Provider<ShopCustomer>
    init(customers: Provider<ShopCustomer>) { self.customers = customers }
}

/// A car built from a model name.
private final class ModelNamedCar: Sendable {
    let model: String
    init(model: String) { self.model = model }
}

@Suite("Handles: scopes and arguments")
struct HandleScopeTests {
    /// A shop whose singleton `CustomerDirectory` holds a `Provider` of the scoped `ShopCustomer`, to
    /// show what such a handle does: validation reports it (a singleton's handles belong to no scope,
    /// so it fails on every use), so the tests make their injectors unvalidated.
    private static func shop(_ ids: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(ShopCustomer.self).to { ShopCustomer(id: ids.increment()) }.in(.scoped)
            binder.bind(ShopCounter.self).to(ShopCounter.init(customer:customers:factory:)).in(.scoped)
            binder.bind(CustomerDirectory.self).to(CustomerDirectory.init(customers:)).in(.singleton)
        }
    }

    @Test("a Lazy, a Provider and an ObjectFactory held by a scoped service resolve in its scope")
    func handlesResolveInTheirScope() throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        let scope = injector.makeScope()
        let checkout = try scope.syncGet(ShopCounter.self)
        let customer = try scope.syncGet(ShopCustomer.self)
        #expect(try checkout.customer.value === customer)
        #expect(try checkout.customers.get() === customer)
        #expect(try checkout.factory.get(ShopCustomer.self) === customer)
        try scope.syncClose()
    }

    @Test("a handle made in one scope never reads another's instance, from 8 scopes on 8 threads")
    func scopesStayApart() throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        let barrier = Barrier(count: 8)
        let mismatches = Counter()
        let finished = runThreads(8) { _ in
            let scope = injector.makeScope()
            barrier.arriveAndWait()
            for _ in 0..<50 {
                guard let checkout = try? scope.syncGet(ShopCounter.self),
                    let customer = try? scope.syncGet(ShopCustomer.self),
                    let lazy = try? checkout.customer.value,
                    let provided = try? checkout.customers.get()
                else {
                    mismatches.increment()
                    continue
                }
                if lazy !== customer || provided !== customer { mismatches.increment() }
            }
            try? scope.syncClose()
        }
        #expect(finished)
        #expect(mismatches.value == 0)
    }

    @Test("after its scope closes, a scoped handle's request for a scoped binding throws outsideScope")
    func closedScope() async throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        let scope = injector.makeScope()
        let checkout = try await scope.get(ShopCounter.self)
        try await scope.close()
        let error = #expect(throws: ProvisionError.self) { try checkout.customers.get() }
        #expect(error?.code == .outsideScope)
        // Unscoped bindings still resolve through it.
        #expect(try checkout.factory.get(CustomerDirectory.self) === (try injector.syncGet(CustomerDirectory.self)))
    }

    @Test("once its scope is closed and released, a scoped handle's error says so, for each kind of handle")
    func releasedScope() throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        var checkout: ShopCounter?
        weak var released: ServiceScope?
        do {
            let scope = injector.makeScope()
            released = scope
            checkout = try scope.syncGet(ShopCounter.self)
            try scope.syncClose()
        }
        #expect(released == nil, "nothing holds the scope any more")
        let handle = try #require(checkout)
        let errors = [
            #expect(throws: ProvisionError.self) { try handle.customers.get() },
            #expect(throws: ProvisionError.self) { try handle.customer.value },
            #expect(throws: ProvisionError.self) { try handle.factory.get(ShopCustomer.self) },
        ]
        for error in errors {
            #expect(error?.code == .outsideScope)
            #expect(error?.key == BindingKey(ShopCustomer.self))
            #expect(error?.message.contains("made in is closed and released") == true)
            #expect(error?.hint.contains("only while that scope is open") == true)
        }
        // Its unscoped bindings still resolve, and a handle that never had a scope keeps its own error.
        #expect(try handle.factory.get(CustomerDirectory.self) === (try injector.syncGet(CustomerDirectory.self)))
        let directory = try injector.syncGet(CustomerDirectory.self)
        let unscoped = #expect(throws: ProvisionError.self) { try directory.customers.get() }
        #expect(unscoped?.message.contains("outside any scope") == true)
    }

    @Test("a singleton's handles belong to no scope, even when the singleton is built inside one")
    func singletonHandles() throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        #expect(injector.validationReport().problems.map(\.code) == [.captiveDependency], "reported beforehand")
        let scope = injector.makeScope()
        let registry = try scope.syncGet(CustomerDirectory.self)
        let error = #expect(throws: ProvisionError.self) { try registry.customers.get() }
        #expect(error?.code == .outsideScope)
        try scope.syncClose()
    }

    @Test("an async scoped build gets handles of its scope too")
    func asyncScopes() async throws {
        let injector = try Injector.unvalidated(Self.shop(Counter()))
        try await injector.withScope { scope in
            let checkout = try await scope.get(ShopCounter.self)
            let customer = try await scope.get(ShopCustomer.self)
            #expect(try checkout.customer.value === customer)
        }
    }

    @Test("a Provider passes arguments, by any of the binding's argument lists; lazy(arguments:) once")
    func arguments() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(ModelNamedCar.self).withArguments(String.self).to { _, model -> ModelNamedCar in
                    builds.increment()
                    return ModelNamedCar(model: model)
                }
                binder.bind(ModelNamedCar.self).withArguments(String.self, Int.self).to { _, model, year in
                    ModelNamedCar(model: "\(model) \(year)")
                }
            }
        )
        let provider = try injector.syncGet(Provider<ModelNamedCar>.self)
        #expect(try provider.get(arguments: "Golf").model == "Golf")
        #expect(try provider.get(arguments: "Golf", 1974).model == "Golf 1974")
        let missing = #expect(throws: ProvisionError.self) { try provider.get() }
        #expect(missing?.code == .argumentMismatch)

        let before = builds.value
        let lazy = provider.lazy(arguments: "Passat")
        #expect(builds.value == before, "nothing is built before the first read")
        let models = Locked<Set<String>>([])
        let finished = runThreads(8) { _ in
            if let car = try? lazy.value { models.withLock { _ = $0.insert(car.model) } }
        }
        #expect(finished)
        #expect(models.withLock { $0 } == ["Passat"])
        #expect(builds.value == before + 1)
    }

    @Test("a Provider with arguments made in a scope passes them in that scope")
    func argumentsInScope() throws {
        let injector = try Injector.unvalidated(
            Self.shop(Counter()),
            ClosureModule { binder in
                binder.bind(String.self).withArguments(String.self).to { resolver, greeting in
                    "\(greeting) \(try resolver.get(ShopCustomer.self).id)"
                }
            }
        )
        let scope = injector.makeScope()
        let checkout = try scope.syncGet(ShopCounter.self)
        let customer = try scope.syncGet(ShopCustomer.self)
        let provider = try checkout.factory.get(Provider<String>.self)
        #expect(try provider.get(arguments: "hello") == "hello \(customer.id)")
        #expect(try checkout.factory.get(String.self, arguments: "hi") == "hi \(customer.id)")
        try scope.syncClose()
    }
}
