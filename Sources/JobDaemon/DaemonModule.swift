import ExampleSupport
import Logging
import Provision

/// The daemon's bindings: four singletons with start and stop hooks, in a chain of dependencies
/// (`Database` <- `JobStore` <- `JobQueue` <- `MetricsReporter`), and two services per job scope, which
/// is seeded with its job.
struct DaemonModule: Module {
    let logger: Logger
    let database: DatabaseConfig
    let metrics: CounterSummary

    func configure(_ binder: Binder) {
        binder.bind(Logger.self).toInstance(logger)
        binder.bind(DatabaseConfig.self).toInstance(database)
        binder.bind(CounterSummary.self).toInstance(metrics)
        binder.bind(JobCounters.self).toInstance(JobCounters())

        // An async factory: connecting suspends, so the database is resolved with `try await`.
        binder.bind(Database.self).to { resolver async throws in
            try await Database.connect(
                config: resolver.get(DatabaseConfig.self),
                logger: resolver.get(Logger.self),
                counters: resolver.get(JobCounters.self)
            )
        }.in(.singleton)

        // Singletons whose `ManagedService` start and stop run in dependency order and in reverse.
        binder.bind(JobStore.self).to(JobStore.init(database:logger:counters:)).in(.singleton)
        binder.bind(JobQueue.self).to(JobQueue.init(store:logger:counters:)).in(.singleton)

        // Start and stop hooks of the binding, for a type that does not conform to `ManagedService`.
        binder.bind(MetricsReporter.self).to(MetricsReporter.init(queue:summary:logger:counters:)).in(.singleton)
            .onStart { reporter in reporter.startReporting() }
            .onStop { reporter in await reporter.stopReporting() }

        // Each job scope is opened with its job; one context and one transaction per scope, disposed
        // when the scope closes, in reverse order of creation.
        binder.bind(Job.self).toSeed()
        binder.bind(JobContext.self).to(JobContext.init(job:logger:)).in(.scoped)
        binder.bind(Transaction.self).to(Transaction.init(database:context:)).in(.scoped)
    }
}
