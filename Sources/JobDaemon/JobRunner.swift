import ExampleSupport
import Logging
import Metrics
import Provision
import ServiceLifecycle

/// The daemon's work loop, a swift-service-lifecycle `Service`: it accepts a job every
/// `options.interval` and runs them on `options.workers` concurrent workers, each job in a service
/// scope of its own, seeded with the job.
///
/// On graceful shutdown it stops accepting, lets the workers finish every accepted job, and returns:
/// only then does the ``InjectorService`` it runs in stop the singletons the jobs use.
struct JobRunner: Service {
    let injector: Injector
    let queue: JobQueue
    let store: JobStore
    let summary: CounterSummary
    let logger: Logger
    let counters: JobCounters
    let options: DaemonOptions

    func run() async throws {
        logger.info("ready: \(options.workers) workers, a job every \(options.intervalMilliseconds) ms")
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                for worker in 1...options.workers {
                    group.addTask { await work(as: worker) }
                }
                await acceptJobs()
            }
        } onCancel: {
            // Cancellation, not graceful shutdown: wake the parked workers so that they return.
            queue.close()
        }
        logger.info("drained: \(summary.jobCounts)")
    }

    /// Accepts jobs until graceful shutdown, then closes the queue. Only this loop accepts and closes
    /// (cancellation aside), so every job it accepted is in the queue before the queue closes.
    private func acceptJobs() async {
        var next = 1
        var accepted = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let job = Job(id: next)
            next += 1
            guard queue.accept(job) else { break }
            accepted += 1
            counters.accepted.increment()
            logger.info("job \(job.id) accepted")
            // Pacing, not synchronisation: a real daemon would wait for a request here.
            try? await Task.sleep(for: options.interval)
        }
        queue.close()
        logger.info("stopped accepting jobs: \(accepted) accepted, \(queue.count) queued")
    }

    /// One worker: takes jobs until the queue is closed and empty.
    private func work(as worker: Int) async {
        while let job = await queue.next() {
            do {
                let checksum = try await run(job)
                counters.finished.increment()
                logger.info("job \(job.id) finished by worker \(worker), checksum \(checksum)")
            } catch {
                counters.failed.increment()
                logger.error("job \(job.id) failed: \(error)")
            }
        }
    }

    /// Runs `job` in a scope of its own, seeded with the job: its context and transaction are made for
    /// it and disposed when the scope closes, the transaction (committing the job's rows) before the
    /// context.
    private func run(_ job: Job) async throws -> UInt32 {
        try await injector.withScope { seed in
            seed.provide(job)
        } body: { scope in
            let transaction = try await scope.get(Transaction.self)
            // The I/O part of the job, then its CPU part.
            try await Task.sleep(for: options.work * (Double(job.id % 8 + 1) / 8))
            let checksum = job.checksum()
            try store.save(job, checksum: checksum, in: transaction)
            return checksum
        }
    }
}
