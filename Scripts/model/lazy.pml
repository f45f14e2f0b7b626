/*
 * lazy.pml: the read gate of one Lazy<T> handle whose binding is transient (Lazy.read in
 * Handles/Lazy.swift, LazyGate), checked exhaustively with spin.
 *
 * A Lazy handle resolves its value once: the first reader reads (resolves the binding), readers that
 * come while it reads wait on the read's gate, and every reader after it gets the stored value. (A
 * handle of a singleton binding has no gate of its own: the singleton's gate is gate.pml's.)
 *
 * Processes: NREADERS readers of the same handle. A read succeeds, fails, or fails with the reader's
 * own task's cancellation (nondeterministically); a waiter may time out (the singleton wait timeout,
 * if configured), at any moment or never.
 *
 * Properties:
 *   - at most one read succeeds, and once the value is stored no read starts (the handle resolves
 *     its value once);
 *   - no lost wake-up and no deadlock: every reader ends (spin's invalid end-state check; a timeout
 *     may also never pass, so a forgotten signal shows as a reader blocked forever);
 *   - a woken waiter finds the read's outcome: the value, or the reader's error; never the reader's
 *     own cancellation, after which it reads again (ProvisionError.isOwnCancellation), as a
 *     singleton's waiters build again;
 *   - the value is stored iff a read succeeded.
 *
 * Abstractions: `state` under its lock is an atomic block; a DispatchSemaphore is a counter whose
 * wait blocks while it is 0; LazyGate.finish writes the outcome under its own lock before it signals.
 *
 * Switches: -DNREADERS=n (default 3), -DNO_TIMEOUT, -DDEFECT_PASS_CANCEL (the reader passes its own
 * cancellation to the waiters, as Lazy did before hunt 9: a waiter whose task was not cancelled ends
 * with a cancellation error), -DDEFECT_LOST_COUNT (the reader takes the waiter count before it
 * leaves the `reading` state, in a separate lock: a waiter registering in between is never woken).
 */

#ifndef NREADERS
#define NREADERS 3
#endif
#define MAXG (NREADERS + 1)      /* gate ids 1..NREADERS: each reader reads at most once */

mtype = { UNRESOLVED, READING, RESOLVED };           /* Lazy.State */
mtype = { PENDING, VALUE, ERROR, RETRY, CANCELLED }; /* LazyGate.outcome: PENDING before finish,
                                                        RETRY = finish(nil) after the reader's own
                                                        cancellation; CANCELLED = that cancellation
                                                        passed on (DEFECT_PASS_CANCEL only) */

/* ---- shared state: Lazy.state under its lock --------------------------------------------------- */
mtype state = UNRESOLVED;
byte stateGate = 0;              /* .reading's gate: 0 = none made yet (made by the first waiter) */
byte stateWaiting = 0;           /* .reading's waiting count */
byte owner = 255;                /* .reading's owner */

/* LazyGate, by id */
mtype outcome[MAXG];
byte sem[MAXG];
byte nextGate = 1;

bool timedOut[NREADERS];         /* the reader's timeout passed (Timer): its wait may end so */

/* ghosts */
byte reads = 0;
byte successes = 0;
byte finished = 0;
bool stored = false;             /* `published` holds the value */

/* The semaphore wait's timeout: it passes, or never does (the wait is long, or has no timeout), so a
   forgotten signal shows as a reader blocked forever. */
proctype Timer(byte me) {
    if
    :: timedOut[me] = true
    :: skip
    fi
}

proctype Reader(byte me) {
    mtype step; byte g; mtype res; byte takeGate; byte takeWaiting;

again:
    atomic {                         /* state.withLock: decide the step */
        if
        :: state == RESOLVED -> step = RESOLVED
        :: state == READING ->
            assert(owner != me);     /* re-entry is a separate, synchronous check (lazyReentered) */
            if
            :: stateGate == 0 -> stateGate = nextGate; nextGate++; outcome[stateGate] = PENDING
            :: else -> skip
            fi;
            g = stateGate; stateWaiting++; step = READING
        :: state == UNRESOLVED ->
            state = READING; owner = me; stateGate = 0; stateWaiting = 0; step = UNRESOLVED
        fi
    }
    if
    :: step == RESOLVED -> assert(stored)
    :: step == READING ->            /* .wait(gate): gate.wait(for:timeout:) */
        printf("MSC: R%d waits on gate %d\n", me, g);
        if
        :: atomic { sem[g] > 0 -> sem[g]-- };
            assert(outcome[g] != PENDING);        /* finish wrote it before it signalled */
            if
            :: outcome[g] == RETRY ->
                printf("MSC: R%d reads again\n", me);
                goto again
            :: outcome[g] == VALUE -> assert(stored)
            :: outcome[g] == ERROR -> skip        /* the reader's error, rethrown */
            :: outcome[g] == CANCELLED ->
                printf("MSC: R%d, not cancelled, ends with the reader's cancellation\n", me);
                assert(false)                     /* a waiter inherited another task's cancellation */
            fi
#ifndef NO_TIMEOUT
        :: atomic { timedOut[me] -> printf("MSC: R%d times out\n", me) }
                                                 /* throws timedOut; its count stays, harmlessly:
                                                    the gate is this read's only */
#endif
        fi
    :: step == UNRESOLVED ->         /* .read: resolve() with no lock held */
        printf("MSC: R%d reads\n", me);
        assert(!stored);             /* never reads once the value is stored */
        reads++;
        if
        :: res = VALUE; successes++; assert(successes <= 1)
        :: res = ERROR
        :: res = RETRY               /* the read failed with this reader's own cancellation */
        fi;
#ifdef DEFECT_LOST_COUNT
        atomic { takeGate = stateGate; takeWaiting = stateWaiting };
#endif
        atomic {                     /* state.withLock: leave .reading, take (gate, waiting) */
            assert(state == READING && owner == me);
#ifndef DEFECT_LOST_COUNT
            takeGate = stateGate; takeWaiting = stateWaiting;
#endif
            if
            :: res == VALUE -> state = RESOLVED; stored = true   /* resolve(&state, to:) publishes */
            :: else -> state = UNRESOLVED
            fi;
            owner = 255
        }
        if                           /* gate?.finish(result or nil, waking: waiting) */
        :: takeGate != 0 ->
#ifdef DEFECT_PASS_CANCEL
            if
            :: res == RETRY -> outcome[takeGate] = CANCELLED
            :: else -> outcome[takeGate] = res
            fi;
#else
            outcome[takeGate] = res;
#endif
            do
            :: takeWaiting > 0 -> sem[takeGate]++; takeWaiting--
            :: else -> break
            od
        :: else -> skip
        fi;
        skip
    fi;
    finished++
}

init {
    byte i;
    atomic {
        i = 0;
        do
        :: i < NREADERS ->
            run Reader(i);
#ifndef NO_TIMEOUT
            run Timer(i);
#endif
            i++
        :: else -> break
        od
    }
    finished == NREADERS;
    assert(state != READING);
    assert(stored == (successes == 1));
    assert(stored == (state == RESOLVED))
}
