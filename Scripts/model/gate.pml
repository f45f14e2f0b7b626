/*
 * gate.pml: the singleton gate of one cell (InstanceCell+Build.swift, SingletonGate.swift) and the
 * async waiter (SuspendedWaiter.swift), checked exhaustively with spin.
 *
 * Processes: NSYNC synchronous requesters (InstanceCell.build) and NASYNC async requesters
 * (InstanceCell.buildAsync) of the same singleton cell. A factory succeeds, fails, or fails with its
 * own task's cancellation (nondeterministically); each async waiter can also be resumed by its timeout
 * timer or by task cancellation, each of which may or may not happen.
 *
 * Properties:
 *   - the factory runs at most once per successful publication: no factory starts once the value is
 *     published, and at most one factory run succeeds (a retry after a failed build is allowed);
 *   - no lost wake-up and no deadlock: every requester ends (spin's invalid end-state check); waits
 *     have no timeout of their own here (the timer may also never fire), so a wake-up the builder
 *     forgets shows as a requester blocked forever;
 *   - a woken waiter always finds the gate's outcome (never .pending): value published -> done,
 *     failed -> the builder's error; failed with the builder's own cancellation -> the waiter, whose
 *     task was not cancelled, decides again (InstanceCell.builderOutcome / inheritedFailure): it may
 *     become the next builder or wait on the next gate, and it still ends. A synchronous builder's
 *     requiresAsync (a service with a synchronous factory that reached an async singleton not built
 *     yet) is such a failure for an async waiter, which doesn't inherit it: CANCELLED here too;
 *   - each SuspendedWaiter's continuation is resumed exactly once, by whichever of builder wake,
 *     timer and cancellation comes first (a cancellation that comes before the continuation is
 *     installed still wins);
 *   - (by construction) a synchronous requester that finds an async build's gate throws
 *     requiresAsync instead of waiting (decide's builtAsynchronously).
 *
 * The order in finish matters: the gate records its outcome before its entry is removed, so a waiter
 * that finds the entry gone (and resumes itself) or is woken never reads .pending. With the entry
 * removed first (as InstanceCell.finish does today) the model finds a waiter reading .pending.
 *
 * Not in this model: the waits-for graph (waitgraph.pml; with one cell no cycle is possible) and the
 * lifecycle's beginBuild/endBuild handshake (lifecycle.pml; here beginBuild always accepts).
 *
 * Switches: -DNSYNC=n -DNASYNC=n (requesters, default 2 and 1), -DNO_TIMER, -DNO_CANCEL,
 * -DNO_CANCELLED_BUILD (no factory fails with its own cancellation: keeps the state space of the
 * larger configurations small), -DDEFECT_STALE_GATE (a synchronous waiter woken by a cancelled build
 * waits on the same, finished gate again instead of deciding again: spin must find it blocked),
 * -DGAP_CANCEL (a cancellation before the continuation is installed is dropped, as
 * SuspendedWaiter.resume does today: the model shows the waiter then waits for the builder anyway).
 */

#ifndef NSYNC
#define NSYNC 2
#endif
#ifndef NASYNC
#define NASYNC 1
#endif
#define NREQ (NSYNC + NASYNC)
#define MAXG (NREQ + 1)          /* gate ids 1..NREQ: each requester builds at most once (a builder ends
                                    with its build's outcome, even a cancelled one) */
#define WAITS (NREQ - 1)         /* the most waits of one async requester: one per other builder */
#define NWAITERS (NASYNC * WAITS) /* SuspendedWaiter slots: a new waiter per wait, as in Swift */

mtype = { PENDING, BUILT, FAILED, CANCELLED };      /* SingletonGate.Outcome; CANCELLED is .failed
                                                       with the builder's own cancellation (builderOutcome) */
mtype = { READY, WAIT, BUILD, BUILT_ASYNC };         /* InstanceCell.GateAction */
mtype = { NONE, WAKE, SELF, TIMER, CANCEL };         /* who resumed a SuspendedWaiter */

/* ---- shared state ---------------------------------------------------------------------------- */

bool published = false;          /* InstanceCell.value != nil (InstanceCell.publish) */

/* The gate host's gates[id] for this cell (GateHost.swift): the installed GateEntry, 0 = none. The
   host is the RegistryStripe for a singleton, the ServiceScope for a scoped instance; the protocol is
   the same. Written only inside atomic blocks: the host's lock (GateHost.withGates). */
byte entry = 0;
byte entryWaiters = 0;           /* GateEntry.waiters: sync waiters counted in decide */
byte entrySuspended = 0;         /* GateEntry.suspended: bit w = SuspendedWaiter w */

/* SingletonGate, by id */
bool gateAsync[MAXG];            /* SingletonGate.isAsync */
mtype outcome[MAXG];             /* SingletonGate.outcome: finalOutcome, published by `ended` (written
                                    before its release store, read after its acquire load): one step */
byte sem[MAXG];                  /* SingletonGate.semaphore (DispatchSemaphore count; made lazily by the
                                    first user, which changes no count) */
byte nextGate = 1;

/* SuspendedWaiter, by waiter slot 0..NWAITERS-1 (SuspendedWaiter.State under its mutex): async
   requester a's k-th wait uses slot a * WAITS + k, so a timer or cancellation of an earlier wait can
   only reach that wait's waiter */
bool installed[NWAITERS];        /* state.continuation != nil */
bool isResumed[NWAITERS];        /* state.isResumed */
mtype resumedBy[NWAITERS];       /* state.timedOut, widened: which resumer won */
byte contResumed[NWAITERS];      /* ghost: times the continuation was resumed (must be exactly 1) */
bool inScope[NWAITERS];          /* ghost: the waiter is inside suspend (cancellation can reach it) */
bool cancelRequested[NWAITERS];  /* ghost: the cancellation handler has run */
bool cancelWasIgnored = false;   /* ghost: another resumer won after a cancellation had run */

/* ghosts */
byte factoryRuns = 0;
byte successes = 0;
byte finishedReqs = 0;
byte redecisions = 0;            /* ghost: waiters that decided again after a cancelled build */

/* ---- SuspendedWaiter.resume(timedOut:) ------------------------------------------------------ */
/* Under the waiter's mutex: the first resumer takes the continuation; later calls do nothing.
   Fixed protocol: a resume that comes before wait() installed the continuation is remembered
   (isResumed), and wait() resumes at once when it finds it. */
inline resume(w, why, took) {
    atomic {
        if
        :: !isResumed[w] && installed[w] ->
            /* a cancellation that ran earlier must have won ("whichever first") */
            cancelWasIgnored = (why != CANCEL && cancelRequested[w]);
            assert(!cancelWasIgnored);
            isResumed[w] = true; resumedBy[w] = why; installed[w] = false; took = true
#ifndef GAP_CANCEL
        :: !isResumed[w] && !installed[w] ->
            isResumed[w] = true; resumedBy[w] = why; took = false
#endif
        :: else -> took = false
        fi;
        if
        :: why == CANCEL -> cancelRequested[w] = true
        :: else -> skip
        fi
    }
    /* continuation.resume(), outside the mutex */
    if
    :: took -> atomic {
        printf("MSC: waiter %d resumed by %e\n", w, why);
        contResumed[w]++;
        assert(contResumed[w] == 1) }
    :: else -> skip
    fi
}

/* ---- InstanceCell.finish ---------------------------------------------------------------------- */
/* publish on success; SingletonGate.finish(outcome); remove the entry under the host's lock, taking
   its waiters; lifecycle.endBuild() (lifecycle.pml); GateEntry.wakeAll() with no lock held. */
inline finish(g, res) {
    if
    :: res == BUILT -> assert(!published); published = true     /* InstanceCell.publish */
    :: else -> skip
    fi;
    outcome[g] = res;                                    /* SingletonGate.finish */
    printf("MSC: gate %d finished: %e\n", g, outcome[g]);
    atomic {                                             /* stripe.withState { gates.removeValue } */
        assert(entry == g);
        entry = 0;
        nWake = entryWaiters; toResume = entrySuspended;
        entryWaiters = 0; entrySuspended = 0
    }
    /* lifecycle.endBuild(): see lifecycle.pml */
    do                                                   /* GateEntry.wakeAll: signal once per waiter */
    :: nWake > 0 -> sem[g]++; nWake--
    :: else -> break
    od;
    wi = 0;
    do                                                   /* ... and resume each suspended waiter */
    :: wi < NWAITERS ->
        if
        :: toResume & (1 << wi) -> resume(wi, WAKE, took)
        :: else -> skip
        fi;
        wi++
    :: else -> break
    od
}

/* the factory: runs with no lock held; succeeds, throws, or throws CancellationError because the
   builder's own task was cancelled (recorded as CANCELLED by builderOutcome) */
inline runFactory(res) {
    printf("MSC: R%d runs the factory (gate %d)\n", me, g);
    assert(!published);          /* never runs once the instance is published */
    factoryRuns++;
    if
    :: res = BUILT; successes++; assert(successes <= 1)
    :: res = FAILED
#ifndef NO_CANCELLED_BUILD
    :: res = CANCELLED
#endif
    fi
}

/* ---- InstanceCell.build (synchronous) ----------------------------------------------------------- */
proctype SyncRequester(byte me) {
    mtype action; byte g; mtype res; byte nWake; byte toResume; byte wi; bool took;

    if                                   /* the caller's fast path: `value` already set */
    :: published -> goto done
    :: else -> skip
    fi;
decide:
    atomic {                             /* InstanceCell.decide(registerWaiter: true), stripe lock */
        if
        :: published -> action = READY
        :: !published && entry != 0 && gateAsync[entry] -> action = BUILT_ASYNC
        :: !published && entry != 0 && !gateAsync[entry] ->
            entryWaiters++; g = entry; action = WAIT
        :: !published && entry == 0 ->   /* lifecycle.beginBuild() accepted (lifecycle.pml) */
            g = nextGate; nextGate++;
            gateAsync[g] = false; outcome[g] = PENDING; entry = g; action = BUILD
        fi
    }
    if
    :: action == READY -> assert(published)
    :: action == BUILT_ASYNC -> skip     /* throws requiresAsync: never blocks on an async build */
    :: action == WAIT ->
        printf("MSC: R%d waits on gate %d (semaphore)\n", me, g);
        /* waitForBuild: WaitGraph.beginWaiting (waitgraph.pml), then semaphore.wait() */
wait:
        atomic { sem[g] > 0 -> sem[g]-- };
        /* WaitGraph.endWaiting; value(after: gate) */
        assert(outcome[g] != PENDING);
        assert(outcome[g] != BUILT || published);
        if
        :: outcome[g] == CANCELLED ->    /* inheritedFailure: nil, decide again */
            printf("MSC: R%d decides again after gate %d was cancelled\n", me, g);
            redecisions++;
#ifdef DEFECT_STALE_GATE
            goto wait                    /* waits on the finished gate again: nobody signals it */
#else
            goto decide
#endif
        :: else -> skip                  /* the value, or the builder's error */
        fi
    :: action == BUILD ->
        runFactory(res);
        finish(g, res)
    fi;
done:
    finishedReqs++
}

/* ---- the async waiter's other resumers ------------------------------------------------------ */
/* SuspendedWaiter.wait's timer task: Task.sleep(timeout) then resume(timedOut: true), unless it is
   cancelled first (the skip branch: the build ended before the timeout). */
proctype Timer(byte w) {
    bool took;
    if
    :: resume(w, TIMER, took)
    :: skip
    fi
}

/* withTaskCancellationHandler's onCancel: the task may be cancelled at any moment while it is in
   suspend (a task already cancelled runs onCancel at once, before the continuation exists). */
proctype Canceller(byte w) {
    bool took;
    if
    :: atomic { inScope[w] -> printf("MSC: waiter %d's task is cancelled\n", w) };
        resume(w, CANCEL, took)
    :: skip
    fi
}

/* ---- InstanceCell.buildAsync ------------------------------------------------------------------ */
proctype AsyncRequester(byte me; byte a) {
    mtype action; byte g; mtype res; byte nWake; byte toResume; byte wi; bool took;
    bool resumeNow; bool registered; byte w; byte waits = 0;

    if
    :: published -> goto done
    :: else -> skip
    fi;
decide:
    atomic {                             /* InstanceCell.decide(isAsync: true, registerWaiter: false) */
        if
        :: published -> action = READY
        :: !published && entry != 0 -> g = entry; action = WAIT
        :: !published && entry == 0 ->
            g = nextGate; nextGate++;
            gateAsync[g] = true; outcome[g] = PENDING; entry = g; action = BUILD
        fi
    }
    if
    :: action == READY -> assert(published)
    :: action == WAIT ->
        /* InstanceCell.suspend: WaitGraph.beginWaiting (waitgraph.pml), then a new SuspendedWaiter's
           wait inside withTaskCancellationHandler */
        assert(waits < WAITS);
        w = a * WAITS + waits; waits++;
        printf("MSC: R%d suspends on gate %d (waiter %d)\n", me, g, w);
        inScope[w] = true;
#ifndef NO_CANCEL
        run Canceller(w);
#endif
        atomic {                         /* SuspendedWaiter.wait: install the continuation */
            if
            :: isResumed[w] -> resumeNow = true
            :: else -> installed[w] = true; resumeNow = false
            fi
        }
        if
        :: resumeNow ->                  /* resumed before it suspended: continue at once */
            atomic { contResumed[w]++; assert(contResumed[w] == 1) }
        :: else ->
            atomic {                     /* the register closure: under the stripe lock, only while
                                            this gate's entry is still installed */
                if
                :: entry == g -> entrySuspended = entrySuspended | (1 << w); registered = true
                :: else -> registered = false
                fi
            }
            if
            :: !registered -> resume(w, SELF, took)   /* the build ended already */
            :: else ->
#ifndef NO_TIMER
                run Timer(w)             /* the timeout timer task */
#else
                skip
#endif
            fi
        fi;
        contResumed[w] > 0;              /* suspended until the continuation is resumed */
        inScope[w] = false;
        /* WaitGraph.endWaiting; then by who resumed it: */
        if
        :: resumedBy[w] == TIMER -> skip     /* throws timedOut */
        :: resumedBy[w] == CANCEL -> skip    /* throws CancellationError */
        :: resumedBy[w] == WAKE || resumedBy[w] == SELF ->
            assert(outcome[g] != PENDING);   /* value(after: gate) */
            assert(outcome[g] != BUILT || published);
            if
            :: outcome[g] == CANCELLED ->    /* inheritedFailure: nil, decide again */
                printf("MSC: R%d decides again after gate %d was cancelled\n", me, g);
                redecisions++;
                goto decide
            :: else -> skip
            fi
        fi
    :: action == BUILD ->
        runFactory(res);
        finish(g, res)
    fi;
done:
    finishedReqs++
}

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < NWAITERS -> resumedBy[i] = NONE; i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < NSYNC -> run SyncRequester(i); i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < NASYNC -> run AsyncRequester(NSYNC + i, i); i++
        :: else -> break
        od
    }
    finishedReqs == NREQ;
    /* at most one successful build, and the value is published iff one succeeded */
    assert(successes <= 1 && (published == (successes == 1)));
    /* every build ended its builder: no more builds than requesters, however many decided again */
    assert(factoryRuns <= NREQ);
    assert(entry == 0)
}
