import Provision
import ServiceLifecycle

/// The daemon's work loop, a swift-service-lifecycle `Service`: it accepts a job every
/// `options.interval` and runs them on `options.workers` concurrent workers, each job in a service
/// scope of its own.
///
/// On graceful shutdown it stops accepting, lets the workers finish every accepted job, and returns:
/// only then does the ``InjectorService`` it runs in stop the singletons the jobs use.
struct JobRunner: Service {
    let injector: Injector
    let queue: JobQueue
    let store: JobStore
    let metrics: Metrics
    let console: Console
    let options: DaemonOptions

    func run() async throws {
        console.line("ready: \(options.workers) workers, a job every \(options.intervalMilliseconds) ms")
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
        console.line("drained: \(metrics.summary)")
    }

    /// Accepts jobs until graceful shutdown, then closes the queue. Only this loop accepts and closes
    /// (cancellation aside), so every job it accepted is in the queue before the queue closes.
    private func acceptJobs() async {
        var next = 1
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let job = Job(id: next)
            next += 1
            guard queue.accept(job) else { break }
            metrics.jobAccepted()
            console.accepted(job.id)
            // Pacing, not synchronisation: a real daemon would wait for a request here.
            try? await Task.sleep(for: options.interval)
        }
        queue.close()
        console.line("stopped accepting jobs: \(metrics.counts.accepted) accepted, \(queue.count) queued")
    }

    /// One worker: takes jobs until the queue is closed and empty.
    private func work(as worker: Int) async {
        while let job = await queue.next() {
            do {
                let checksum = try await run(job)
                metrics.jobFinished()
                console.finished(job.id, worker: worker, checksum: checksum)
            } catch {
                metrics.jobFailed()
                console.failed(job.id, error: error)
            }
        }
    }

    /// Runs `job` in a scope of its own: its context and transaction are made for it and disposed
    /// when the scope closes, the transaction (committing the job's rows) before the context.
    private func run(_ job: Job) async throws -> UInt32 {
        try await injector.withScope { scope in
            let context = try await scope.get(JobContext.self)
            context.assign(job.id)
            let transaction = try await scope.get(Transaction.self)
            // The I/O part of the job, then its CPU part.
            try await Task.sleep(for: options.work * (Double(job.id % 8 + 1) / 8))
            let checksum = job.checksum()
            try store.save(job, checksum: checksum, in: transaction)
            return checksum
        }
    }
}
