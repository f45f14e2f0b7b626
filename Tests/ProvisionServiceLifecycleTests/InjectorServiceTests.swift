import Logging
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import Testing

/// A logger that drops everything: the service groups' debug messages are not what these tests check.
private let quiet = Logger(label: "provision.tests") { _ in SwiftLogNoOpLogHandler() }

/// A group whose only service is `service`.
private func group(of service: InjectorService) -> ServiceGroup {
    ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: quiet))
}

/// The last singleton of the chain: its start hook opens `started`, after every other start hook.
private final class ChainTail: Sendable {
    init(queue: ChainQueue) {}
}

@Suite("InjectorService")
struct InjectorServiceTests {
    @Test("graceful shutdown stops the nested services last first, then the singletons in reverse order")
    func gracefulShutdownOrder() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let first = ProbeService("first", log: log)
        let second = ProbeService("second", log: log)
        let group = group(of: InjectorService(injector: injector, services: [first, second], logger: quiet))

        try await withWatchdog {
            async let run: Void = group.run()
            await first.running.wait()
            await second.running.wait()
            // The nested services ran only once every start hook had returned.
            #expect(Array(log.all.prefix(3)) == chainStarts)
            #expect(Set(log.all.dropFirst(3)) == ["run first", "run second"])
            await group.triggerGracefulShutdown()
            try await run
        }

        #expect(Array(log.all.dropFirst(5)) == ["end second", "end first"] + chainStops)
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(ChainStore.self) }
        #expect(error?.code == .shutDown)
    }

    @Test("with no services of its own it runs until graceful shutdown")
    func noNestedServices() async throws {
        let log = EventLog()
        let started = Latch()
        let injector = try Injector(
            chainModule(log: log),
            ClosureModule { binder in
                binder.bind(ChainTail.self).to(ChainTail.init(queue:)).in(.singleton)
                    .onStart { _ in started.open() }
            }
        )
        let group = group(of: InjectorService(injector: injector, logger: quiet))

        try await withWatchdog {
            async let run: Void = group.run()
            await started.wait()
            #expect(log.all == chainStarts)
            await group.triggerGracefulShutdown()
            try await run
        }

        #expect(log.all == chainStarts + chainStops)
    }

    @Test("a start failure is thrown by the group, after the singletons that started are stopped")
    func startFailure() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log, faults: Faults(failingSteps: ["start Store"])))
        let probe = ProbeService("probe", log: log)
        let group = group(of: InjectorService(injector: injector, services: [probe], logger: quiet))

        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog { try await group.run() }
        }

        #expect(error?.code == .startFailed)
        #expect(log.all == ["start Database", "stop Database"])
    }

    @Test("a nested service that throws cancels the others; the injector is shut down and the error thrown")
    func nestedServiceFailure() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let waiting = ProbeService("waiting", log: log)
        let failing = ProbeService("failing", log: log, fails: true)
        let group = group(of: InjectorService(injector: injector, services: [waiting, failing], logger: quiet))

        let error = await #expect(throws: InjectedFailure.self) {
            try await withWatchdog { try await group.run() }
        }

        #expect(error == InjectedFailure(step: "run failing"))
        #expect(Array(log.all.prefix(3)) == chainStarts)
        #expect(Set(log.all.dropFirst(3).dropLast(3)) == ["run waiting", "run failing", "cancel waiting"])
        #expect(Array(log.all.suffix(3)) == chainStops)
    }

    @Test("cancelling the group runs every stop hook to completion all the same")
    func cancellation() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let probe = ProbeService("probe", log: log)
        let group = group(of: InjectorService(injector: injector, services: [probe], logger: quiet))

        try await withWatchdog {
            let run = Task { try await group.run() }
            await probe.running.wait()
            run.cancel()
            _ = await run.result
        }

        // The probe sees the cancellation, or the graceful shutdown the nested group derives from it
        // (swift-service-lifecycle races the two). Either way it returned before the first stop hook,
        // and the database's stop hook, which suspends, completed: cancellation cut nothing short.
        let events = log.all
        #expect(events.count == 8)
        #expect(Array(events.prefix(4)) == chainStarts + ["run probe"])
        #expect(["cancel probe", "end probe"].contains(events.dropFirst(4).first ?? ""))
        #expect(Array(events.suffix(3)) == chainStops)
    }

    @Test("run() outside a group waits for cancellation, shuts the injector down and throws CancellationError")
    func outsideAGroup() async throws {
        let log = EventLog()
        let started = Latch()
        let injector = try Injector(
            chainModule(log: log),
            ClosureModule { binder in
                binder.bind(ChainTail.self).to(ChainTail.init(queue:)).in(.singleton)
                    .onStart { _ in started.open() }
            }
        )
        let service = InjectorService(injector: injector, logger: quiet)

        let result = try await withWatchdog {
            let run = Task { try await service.run() }
            await started.wait()
            run.cancel()
            return await run.result
        }

        #expect(throws: CancellationError.self) { try result.get() }
        #expect(log.all == chainStarts + chainStops)
    }

    @Test("a stop failure is thrown after graceful shutdown, once the other singletons are stopped")
    func stopFailure() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log, faults: Faults(failingSteps: ["stop Store"])))
        let probe = ProbeService("probe", log: log)
        let group = group(of: InjectorService(injector: injector, services: [probe], logger: quiet))

        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog {
                async let run: Void = group.run()
                await probe.running.wait()
                await group.triggerGracefulShutdown()
                try await run
            }
        }

        #expect(error?.code == .stopFailed)
        #expect(log.all == chainStarts + ["run probe", "end probe", "stop Queue", "stop Database"])
    }

    @Test("the services closure runs after the injector has started and resolves its singletons")
    func servicesFromTheInjector() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let probe = ProbeService("probe", log: log)
        let service = InjectorService(injector: injector, logger: quiet) { injector in
            let queue = try await injector.get(ChainQueue.self)
            queue.log.record("make services")
            return [ServiceGroupConfiguration.ServiceConfiguration(service: probe)]
        }
        let group = group(of: service)

        try await withWatchdog {
            async let run: Void = group.run()
            await probe.running.wait()
            await group.triggerGracefulShutdown()
            try await run
        }

        #expect(log.all == chainStarts + ["make services", "run probe", "end probe"] + chainStops)
    }

    @Test("when the services closure throws, the injector is shut down and the error thrown")
    func servicesClosureFailure() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let service = InjectorService(injector: injector, logger: quiet) { _ in
            throw InjectedFailure(step: "make services")
        }

        let error = await #expect(throws: InjectedFailure.self) {
            try await withWatchdog { try await group(of: service).run() }
        }

        #expect(error == InjectedFailure(step: "make services"))
        #expect(log.all == chainStarts + chainStops)
    }

    @Test("graceful shutdown requested before the group runs still starts, then stops, everything")
    func shutdownBeforeRun() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let probe = ProbeService("probe", log: log)
        let group = group(of: InjectorService(injector: injector, services: [probe], logger: quiet))

        await group.triggerGracefulShutdown()
        try await withWatchdog { try await group.run() }

        #expect(log.all == chainStarts + ["run probe", "end probe"] + chainStops)
    }

    @Test("a group logs the service by its type name")
    func description() throws {
        let service = InjectorService(injector: try Injector(chainModule(log: EventLog())), logger: quiet)
        #expect(ServiceGroupConfiguration.ServiceConfiguration(service: service).serviceName == "InjectorService")
    }
}
