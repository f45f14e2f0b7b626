/*
 * waitgraph.pml: the waits-for graph (WaitGraph.swift) over the singleton gates of several cells
 * (InstanceCell+Build.swift), with threads and async tasks (child tasks of a factory), checked
 * exhaustively with spin.
 *
 * Each process resolves one root key the way Resolver/InstanceCell do: a transient runs its factory
 * at once; a singleton goes through the gate (decide: ready / wait / build). A factory is a small
 * program of steps: GET a key, SPAWN a child task that resolves a key (`async let`, a task with an
 * identity of its own that inherits the path), JOIN it, END. A failed step makes the factory throw;
 * the error ends the gate (published nothing) and goes up. Waiting on a gate is "until the gate is
 * finished": the wake-up itself is checked in gate.pml.
 *
 * The search (WaitGraph.State.cycle(from:to:holding:) and waitsHolding): the graph's vertices are
 * gates. A gate X leads to gate W when a recorded wait on W is held by X: the wait of X's owner
 * (a thread or a task runs one stack, so it holds every unfinished gate it owns), or a wait whose
 * path holds X (ResolutionContext.heldGates: the gates of the builds on its path, its parents'
 * included). A finished gate is never an edge, and a finished gate waited on is no cycle. Waiting on
 * G closes a cycle when the search from G reaches a gate the requester holds.
 *
 * The scenario is chosen with -DSCENARIO=n:
 *   1  (default) the issue's false cycle. A and B singletons, B's factory resolves A; C transient
 *      resolves A then B. Thread 1 requests C, thread 2 requests B. No cycle exists; with DEFECT1
 *      (a stale wait record on a finished gate is followed) thread 1 gets a false cycle error.
 *   2  a real cross-thread cycle: A needs B, B needs A, requested from two threads. It must be
 *      reported (to one of them) and nobody may deadlock.
 *   3  a real cycle through a child task: task P builds A, whose factory resolves B in a child task
 *      (async let) and awaits it; thread T builds B, whose factory resolves A. Found only because
 *      a wait's path holds the gates of its parents' builds.
 *   4  no cycle, two tasks of one resolution: P builds A, whose factory resolves B in a child task and
 *      also resolves B itself, then awaits the child. The child must wait for P's build of B.
 *
 * Properties (assertions):
 *   - a cycle error is reported only when a real cycle of waits on unfinished gates exists: a ghost
 *     "true waits-for graph", computed from what the processes are actually blocked on and which gates
 *     their paths are building, must show that waiting would close a cycle;
 *   - a requester that goes on to wait never closes a real cycle (it would deadlock);
 *   - no deadlock: every process ends (spin's invalid end-state check).
 *
 * Switches:
 *   -DDEFECT1          follow records whose gate has finished (the stale record of a woken waiter);
 *   -DGAP_FINISHED     search even when the gate waited on has finished since decide (the protocol
 *                      as first specified: scenario 1 then still gets a false cycle);
 *   -DIDENTITY_SEARCH  the search as first specified: from the gate's owner along recorded waits,
 *                      owner to owner, a record also standing for the waiter's ancestors; a cycle
 *                      when it reaches the requester or an ancestor (scenario 4: a false cycle).
 *
 * The search runs in one d_step. In Swift it holds the WaitGraph lock, but SingletonGate.finish does
 * not take that lock, so gates may finish while it runs. That only makes a gate read as unfinished
 * look older: finishing is monotonic and records change only under the lock, so every edge the
 * search follows existed, with its gate unfinished, at the moment the search began.
 */

#ifndef SCENARIO
#define SCENARIO 1
#endif

#define NC 3            /* cells A=0, B=1, C=2 */
#define MAXOPS 4
#define DEPTH 3
#define NID 6           /* identities 1..5 (0 = none): two roots, children of retried builds */
#define MAXG 8          /* gate ids 1..7 (a failed gate is replaced on the next request) */

#define A 0
#define B 1
#define C 2

#define OP_END 0
#define OP_GET 1
#define OP_SPAWN 2
#define OP_JOIN 3
#define OP(k, x) (((k) << 4) | (x))

mtype = { READY, WAIT, BUILD };        /* InstanceCell.GateAction */

/* bindings */
bool singleton[NC];
byte prog[NC * MAXOPS];                /* each factory's steps */

/* InstanceCell.value and the gate entries of its host (GateHost: stripe or scope), host lock = atomic */
bool published[NC];
byte entry[NC];

/* SingletonGate, by id */
byte gowner[MAXG];                     /* SingletonGate.owner: thread or task identity */
byte gcell[MAXG];
bool finished[MAXG];                   /* SingletonGate.outcome != .pending */
bool gfailed[MAXG];
byte nextGate = 1;

/* WaitGraph.waiting (one global lock = d_step): one record per identity */
bool recActive[NID];
byte recGate[NID];
int recHeld[NID];                      /* Wait.held: the gates of the builds on the waiter's path */
byte recAnc[NID];                      /* IDENTITY_SEARCH: the owners of those gates (its ancestors) */

/* ghosts: the true state of each process */
byte blocked[NID];                     /* the gate it is blocked on (0 = not blocked) */
int pathGatesOf[NID];                  /* the gates its path (its own frames, its ancestors') builds */
bool childDone[NID];
bool childErr[NID];
byte nextId;
byte doneCount = 0;
byte cycleErrors = 0;

/* ghost: would `me` waiting on gate `g` close a real cycle? A gate cannot finish while a process
   whose path builds it is blocked on another unfinished gate; follow that relation from g. */
inline realCycle(me, g, result) {
    reach = 1 << g; changed = !finished[g];
    do
    :: changed ->
        changed = false; i = 1;
        do
        :: i < NID ->
            w = blocked[i];
            if
            :: w != 0 && !finished[w] && (pathGatesOf[i] & reach) != 0 && (reach & (1 << w)) == 0 ->
                reach = reach | (1 << w); changed = true
            :: else -> skip
            fi;
            i++
        :: else -> break
        od
    :: else -> break
    od;
    result = (!finished[g] && (reach & pathGatesOf[me]) != 0)
}

#ifdef DEFECT1
#define RECORD_LIVE(w) true             /* DEFECT1: a stale record of a finished gate counts too */
#else
#define RECORD_LIVE(w) (!finished[w])   /* `guard !next.gate.isFinished else { continue }` */
#endif
#ifdef GAP_FINISHED
#define START_FINISHED(g) false         /* GAP_FINISHED: search even from a finished gate */
#else
#define START_FINISHED(g) finished[g]
#endif

/* IDENTITY_SEARCH, the search as first specified: from the gate's owner along recorded waits; owner O
   has an edge to gate G' if O (or a descendant of O: records carry their ancestors) has a recorded
   wait on G' and G' is not finished; a cycle if it reaches the requester or one of its ancestors. */
inline searchIdentities(me, myAnc, g, result) {
    reach = 1 << gowner[g]; changed = true;
    do
    :: changed ->
        changed = false; i = 1;
        do
        :: i < NID ->
            w = recGate[i];
            if
            :: recActive[i] && RECORD_LIVE(w) && (reach & ((1 << i) | recAnc[i])) != 0 && (reach & (1 << gowner[w])) == 0 ->
                reach = reach | (1 << gowner[w]); changed = true
            :: else -> skip
            fi;
            i++
        :: else -> break
        od
    :: else -> break
    od;
    result = ((reach & ((1 << me) | myAnc)) != 0)
}

/* WaitGraph.State.cycle(from: g, to: me, holding: myGates): isHeld(x) is x's owner being me or x on
   my path; from each gate reached, waitsHolding(x) (the owner's wait, and the waits whose path holds
   x) lead to their gates, unless finished. reach: the gates visited; owners: their owners. */
#define HELD(x) (gowner[x] == me || (myGates & (1 << (x))) != 0)
inline searchGates(me, myGates, g, result) {
    result = false;
    if
    :: START_FINISHED(g) -> skip       /* `if start.isFinished { return nil }` */
    :: else ->
        if
        :: HELD(g) -> result = true    /* `if isHeld(start) { return [] }` */
        :: else ->
            reach = 1 << g; owners = 1 << gowner[g]; changed = true;
            do
            :: changed && !result ->
                changed = false; i = 1;
                do
                :: i < NID ->
                    w = recGate[i];
                    if
                    :: recActive[i] && RECORD_LIVE(w) && ((owners & (1 << i)) != 0 || (recHeld[i] & reach) != 0) && (reach & (1 << w)) == 0 ->
                        if
                        :: HELD(w) -> result = true
                        :: else -> reach = reach | (1 << w); owners = owners | (1 << gowner[w]); changed = true
                        fi
                    :: else -> skip
                    fi;
                    i++
                :: else -> break
                od
            :: else -> break
            od
        fi
    fi
}

/* A thread or a task resolving `root`. inhGates/inhKeys: the path it inherits (a child task's parent
   path at the `async let`): ResolutionContext.keys, and the gates being built along it. */
proctype Req(byte me; byte root; int inhGates; byte inhKeys) {
    byte fcell[DEPTH]; byte fpc[DEPTH]; byte fgate[DEPTH]; byte fchild[DEPTH];
    byte sp = 0; byte c; byte g; byte op; byte child; byte myAnc = 0; byte myKeys;
    int myGates; int reach; bool changed; byte i; byte w;
    bool err = false; bool cyc; bool cycleIsReal; mtype action; int owners;

    d_step {
        /* ancestors = owners of the gates its inherited path is building */
        i = 1;
        do
        :: i < MAXG ->
            if :: (inhGates & (1 << i)) != 0 -> myAnc = myAnc | (1 << gowner[i]) :: else -> skip fi;
            i++
        :: else -> break
        od;
        myGates = inhGates; myKeys = inhKeys; pathGatesOf[me] = myGates;
        c = root
    }

RESOLVE:    /* Resolver / InstanceCell.build: resolve key c */
    if
    :: (myKeys & (1 << c)) != 0 ->
        err = true; goto RETURN         /* context.contains(key): cycle on the path (self-cycle) */
    :: else -> skip
    fi;
    if
    :: !singleton[c] ->                 /* a transient: its factory runs now */
        d_step {
            fcell[sp] = c; fpc[sp] = 0; fgate[sp] = 0; fchild[sp] = 0; sp++;
            myKeys = myKeys | (1 << c)
        };
        goto RUN
    :: else -> skip
    fi;
    atomic {                            /* InstanceCell.decide, under the host's lock */
        if
        :: published[c] -> action = READY
        :: !published[c] && entry[c] != 0 -> g = entry[c]; action = WAIT
        :: !published[c] && entry[c] == 0 ->   /* lifecycle.beginBuild() accepts (lifecycle.pml) */
            g = nextGate; nextGate++;
            gowner[g] = me; gcell[g] = c; entry[c] = g; action = BUILD
        fi
    }
    if
    :: action == READY -> goto RETURN
    :: action == BUILD ->
        printf("MSC: T%d builds %c (gate %d)\n", me, 'A' + c, g);
        d_step {
            fcell[sp] = c; fpc[sp] = 0; fgate[sp] = g; fchild[sp] = 0; sp++;
            myKeys = myKeys | (1 << c); myGates = myGates | (1 << g); pathGatesOf[me] = myGates
        };
        goto RUN
    :: action == WAIT -> printf("MSC: T%d finds %c's gate %d, owned by T%d\n", me, 'A' + c, g, gowner[g])
    fi;
    /* waitForBuild / suspend: WaitGraph.beginWaiting(on: gate), one lock */
    assert(gowner[g] != me);            /* a gate of our own is on our path: found above */
    d_step {
#ifdef IDENTITY_SEARCH
        if
        :: START_FINISHED(g) -> cyc = false
        :: else -> searchIdentities(me, myAnc, g, cyc)
        fi;
#else
        searchGates(me, myGates, g, cyc);
#endif
        realCycle(me, g, cycleIsReal);
        if
        :: cyc ->
            printf("MSC: T%d: cycle error instead of waiting on gate %d\n", me, g);
            assert(cycleIsReal);        /* no false cycle */
            cycleErrors++
        :: else ->                      /* the wait is recorded (even on a finished gate: harmless) */
            printf("MSC: T%d records its wait on gate %d and waits\n", me, g);
            assert(!cycleIsReal);       /* waiting here would deadlock */
            recActive[me] = true; recGate[me] = g; recHeld[me] = myGates; recAnc[me] = myAnc;
            blocked[me] = g
        fi
    };
    if
    :: cyc -> err = true; goto RETURN   /* throws crossThreadCycle; does not wait */
    :: else -> skip
    fi;
    atomic { finished[g] -> blocked[me] = 0 };  /* semaphore.wait() / the continuation, woken */
    atomic {                            /* WaitGraph.endWaiting (a separate step: the stale window) */
        recActive[me] = false;
        printf("MSC: T%d removes its wait record\n", me)
    };
    err = gfailed[g];                   /* value(after: gate): the value, or the builder's error */
    goto RETURN;

RUN:        /* the factory on top of the stack runs its next step, with no lock held */
    skip;
    d_step {
        op = prog[fcell[sp - 1] * MAXOPS + fpc[sp - 1]];
        fpc[sp - 1]++
    };
    if
    :: (op >> 4) == OP_GET -> c = op & 15; goto RESOLVE
    :: (op >> 4) == OP_SPAWN ->         /* async let: a child task with the path so far */
        printf("MSC: T%d spawns a child task for %c\n", me, 'A' + (op & 15));
        atomic { child = nextId; nextId++; fchild[sp - 1] = child;
                 run Req(child, op & 15, myGates, myKeys) };
        goto RUN
    :: (op >> 4) == OP_JOIN ->          /* await the child */
        child = fchild[sp - 1];
        childDone[child];
        fchild[sp - 1] = 0;
        err = childErr[child];
        if
        :: err -> goto ENDFRAME
        :: else -> goto RUN
        fi
    :: (op >> 4) == OP_END -> goto ENDFRAME
    fi;

ENDFRAME:   /* the factory returned (err false) or threw (err true); InstanceCell.finish */
    child = fchild[sp - 1];
    if
    :: child != 0 -> childDone[child]; fchild[sp - 1] = 0   /* a scope waits for its child tasks */
    :: else -> skip
    fi;
    g = fgate[sp - 1];
    if
    :: g != 0 ->
        if
        :: !err -> published[gcell[g]] = true          /* publish */
        :: else -> skip
        fi;
        atomic { finished[g] = true; gfailed[g] = err };     /* SingletonGate.finish */
        printf("MSC: T%d finishes gate %d (failed: %d)\n", me, g, err);
        entry[gcell[g]] = 0;                             /* remove the entry (host's lock) */
        /* lifecycle.endBuild(); wakeAll: the waiters see finished[g] */
        myGates = myGates & ~(1 << g); pathGatesOf[me] = myGates
    :: else -> skip
    fi;
    d_step { myKeys = myKeys & ~(1 << fcell[sp - 1]); sp-- };

RETURN:     /* a resolution returned its value or threw, to the factory on top or to the caller */
    if
    :: sp == 0 -> skip
    :: sp > 0 && err -> goto ENDFRAME   /* the factory throws the error on */
    :: sp > 0 && !err -> goto RUN
    fi;
    atomic { childErr[me] = err; childDone[me] = true; doneCount++ }
}

init {
    atomic {
#if SCENARIO == 1
        singleton[A] = true; prog[A * MAXOPS] = OP(OP_END, 0);
        singleton[B] = true; prog[B * MAXOPS] = OP(OP_GET, A); prog[B * MAXOPS + 1] = OP(OP_END, 0);
        singleton[C] = false;
        prog[C * MAXOPS] = OP(OP_GET, A); prog[C * MAXOPS + 1] = OP(OP_GET, B); prog[C * MAXOPS + 2] = OP(OP_END, 0);
        nextId = 3;
        run Req(1, C, 0, 0);            /* thread 1: get(C) */
        run Req(2, B, 0, 0)             /* thread 2: get(B) */
#elif SCENARIO == 2
        singleton[A] = true; prog[A * MAXOPS] = OP(OP_GET, B); prog[A * MAXOPS + 1] = OP(OP_END, 0);
        singleton[B] = true; prog[B * MAXOPS] = OP(OP_GET, A); prog[B * MAXOPS + 1] = OP(OP_END, 0);
        nextId = 3;
        run Req(1, A, 0, 0);
        run Req(2, B, 0, 0)
#elif SCENARIO == 3
        singleton[A] = true;
        prog[A * MAXOPS] = OP(OP_SPAWN, B); prog[A * MAXOPS + 1] = OP(OP_JOIN, 0); prog[A * MAXOPS + 2] = OP(OP_END, 0);
        singleton[B] = true; prog[B * MAXOPS] = OP(OP_GET, A); prog[B * MAXOPS + 1] = OP(OP_END, 0);
        nextId = 3;
        run Req(1, A, 0, 0);            /* task P: get(A) */
        run Req(2, B, 0, 0)             /* thread T: get(B) */
#elif SCENARIO == 4
        singleton[A] = true;
        prog[A * MAXOPS] = OP(OP_SPAWN, B); prog[A * MAXOPS + 1] = OP(OP_GET, B);
        prog[A * MAXOPS + 2] = OP(OP_JOIN, 0); prog[A * MAXOPS + 3] = OP(OP_END, 0);
        singleton[B] = true; prog[B * MAXOPS] = OP(OP_END, 0);
        nextId = 2;
        run Req(1, A, 0, 0)             /* task P: get(A) */
#endif
    }
    /* every process ended (a deadlock would leave this init blocked: an invalid end state) */
    _nr_pr == 1;
#if SCENARIO == 1 || SCENARIO == 4
    assert(cycleErrors == 0)
#elif SCENARIO == 2 || SCENARIO == 3
    /* a real cycle ends in an error somewhere: A and B cannot both be built */
    assert(!(published[A] && published[B]))
#endif
}
