import Provision

/// The daemon's bindings: four singletons with start and stop hooks, in a chain of dependencies
/// (`Database` <- `JobStore` <- `JobQueue` <- `Metrics`), and two services per job scope.
struct DaemonModule: Module {
    let console: Console
    let database: DatabaseConfig

    func configure(_ binder: Binder) {
        binder.bind(Console.self).toInstance(console)
        binder.bind(DatabaseConfig.self).toInstance(database)

        // An async factory: connecting suspends, so the database is resolved with `try await`.
        binder.bind(Database.self).to { resolver async throws in
            try await Database.connect(
                config: resolver.get(DatabaseConfig.self),
                console: resolver.get(Console.self)
            )
        }.in(.singleton)

        // Singletons whose `ManagedService` start and stop run in dependency order and in reverse.
        binder.bind(JobStore.self).to(JobStore.init(database:console:)).in(.singleton)
        binder.bind(JobQueue.self).to(JobQueue.init(store:console:)).in(.singleton)

        // Start and stop hooks of the binding, for a type that does not conform to `ManagedService`.
        binder.bind(Metrics.self).to(Metrics.init(queue:console:)).in(.singleton)
            .onStart { metrics in metrics.startReporting() }
            .onStop { metrics in await metrics.stopReporting() }

        // One of each per job scope, disposed when the scope closes, in reverse order of creation.
        binder.bind(JobContext.self).to(JobContext.init(console:)).in(.scoped)
        binder.bind(Transaction.self).to(Transaction.init(database:context:console:)).in(.scoped)
    }
}
