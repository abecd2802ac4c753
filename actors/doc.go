// Package actors holds orcr's use cases and the actors that carry them out, and the
// concurrency invariants of the server. Keep this comment true: every change to the
// tree, a Request direction or the shutdown order is written down here in the same
// commit (TestActorTreeMatchesDoc in socketapi/server compares the running actors
// with the tree below).
//
// # The facade
//
// [System] is the one facade every face of the server calls: the Unix socket today
// (socketapi/server dispatches from the method table api.Methods, whose entries
// call System through the api.Facade interface), the WebSocket stream
// (socketapi/ws, through its own Facade interface), the web dashboard on the same listener
// (socketapi/ws, docs/dashboard.md), the fleet's request subject orcr.api.<host> (package socketapi/fleet,
// from the same table under fleet.allow: docs/fleet.md §4); `orcr top` and the MCP face (`orcr mcp`,
// cmd/orcr/mcp) are clients of the Unix socket. Its methods (Run, Ask, Send, Kill, Wait, Logs, Ls, Snapshot,
// Status, AttachPrepare, AttachHeartbeat, AttachRelease, Adopt, the Loop* verbs, Token, DashboardLogin, MCPToken, MCPAuth; for
// the WebSocket face CheckStreamToken, OpenStream and StreamFrame; for the dashboard
// RedeemDashboardLink, CheckDashboardSession, CheckDashboardStream and OpenDashboardFeed) take the wire's typed requests and return its typed results (package
// socketapi/api defines them) and *wire.Error values. They are edge code: they run on the caller's goroutine and may
// block on futures. All SQL lives in package store, behind named operations; this
// package holds the rules and the order of side effects.
//
// # Files by role
//
// A file's name says its role; a rule is found under its subsystem's prefix.
//
//	system.go, system_*.go  the facade: Start, Stop, SystemConfig; provider integration as the
//	                        one [Providers] value System shares with the agent actors
//	                        (AgentEnv.Providers); herdr discovery
//	verb_*.go               the facade's agent verbs, one file each: run, ask, send, kill, wait,
//	                        logs, status (ls, snapshot, server.status), attach, adopt, the
//	                        prompt check, dashboard, MCP tokens, the hidden debug methods
//	agent.go, agent_*.go    the agent actor (agent.go), the agents router, its op goroutine
//	                        (agent_work.go) and ops: spawn, start, deliver, move, adopt, kill
//	                        and reap (agent_ops.go), turns, stall probe, unmanaged rows, restart
//	                        recovery of intents (agent_recover.go), the launch payload and
//	                        pane exit; pure rules in agent_*_rule.go (turn, start, stall, repair)
//	limit_*.go              rate-limit-aware admission: the agent's pause, the reset parser,
//	                        the pause and quota rules
//	usage_*.go              usage, budget and quota verbs
//	loop_*.go               loops: the scheduler, the loop actor, the Loop* verbs
//	remote_*.go             the remote stream: hub, connection actor (ws-<n>), verbs, client
//	                        frames (remote_frames.go) and the agent actor's side of them
//	                        (remote_ops.go)
//	notify_*.go             the notify actor and its start; rules in actors/notify
//	fleet_*.go              the fleet publisher: committed events → the fleet's stream (package socketapi/fleet);
//	                        the fleet-wide provider slots (fleet_leases.go)
//	herdr_*.go              the actors that read herdr's view: monitor, reconciler, discovery
//	sched_*.go              the queue (promotion, deadlines) and gc sweeps
//	store_*.go              the store actor, its kill barriers, the subscription actor
//	worktree.go             an agent's git worktree (git calls in actors/worktree)
//
// # Actor tree
//
// All actors live in one protoactor-go system built by [actorkit.NewSystem], whose
// library logger (including its "actor system started" line) writes to the server log,
// never to stdout. Every Props is built by actorkit.Props, which logs a panic's stack and
// re-panics so supervision still applies; the herdr driver, which imports nothing under
// actors/, is handed it as herdr.Config.Props. The names are the actors' ids in the
// process registry (<...> is a variable part; a child's id is its parent's id, "/", its
// name).
//
//	root
//	├── store                        the store actor: the only writer of the SQLite store; holds the kill barriers
//	├── herdr                        the herdr driver's supervisor (see herdr/doc.go)
//	│   └── herdr-session-<name>-<n> one connection actor per herdr session
//	├── monitor                      completion monitor: one agent.list per tick (fast while an agent is active), reports only changes
//	├── agents                       routes by uuid; runs restart recovery at start
//	│   └── <uuid>-<n>               one per managed agent with work to do; keeps its row in memory
//	├── queue                        FIFO promotion under the caps, stuck-start guard, --timeout sweep, pauses ending
//	├── reconciler                   diffs the owned session's panes against the rows: at start, then every gc_tick
//	├── gc                           every timings.gc_tick: deletes expired attach leases, forgets ended agents past retention, then park and reap sweeps (selects only)
//	├── discovery                    every 2 s (4 s with no user session): unmanaged agents of the user's herdr sessions (absent with ORCR_DISABLE_DISCOVERY=1)
//	├── loops                        loop scheduler: the due loops and timed-out runs, scanned at the next fire (loop_tick while overdue); restart recovery of runs
//	│   └── loop-<uuid>-<n>          one per active or paused loop: fires, manual starts, promotions, stops, exits, pause, rm
//	├── remote                       the remote stream's hub: one connection per agent, revocation, the replay gate
//	├── notify                       notifications (only with notify rules): committed events → durable deliveries
//	│   └── <target>                 one per notify target: schedules attempts of its pending deliveries
//	├── fleet                        the fleet publisher (only with a fleet section): committed events → the ORCR_EVENTS stream
//	├── fleet-leases                 the fleet-wide provider slots (only with fleet.caps): ORCR_LEASES kept to what the queue needs
//	├── ws-<n>                       one per remote stream WebSocket (socketapi/ws): replay-then-tail of one agent's log
//	├── dash-<n>                     one per dashboard fleet feed (socketapi/ws): a watch.open subscription for a browser
//	├── conn/<n>                     one per accepted client connection (socketapi/server)
//	│   └── <subscription>           one per events.subscribe / watch.open on that connection
//	└── wait-<n>                     one per blocked agent.wait / agent.ask: forwards commit notifications
//
// Each connection also has two goroutines of edge code beside its actor: the reader,
// which decodes frames in arrival order, negotiates the protocol version and dispatches
// (inline handlers such as handshake, schema and stop answer right there; handlers that
// may block — every facade call — run on a request goroutine, which may block on a
// future's Result(); streaming methods are sent to the connection actor as openStream
// and become its children), and the writer, which writes queued frames whole.
// Responses are written by the edge goroutines; actors only ever enqueue (Enqueue never
// blocks), so a slow client cannot stall an actor.
//
// An agent actor retires only when its row has ended. The agents actor routes every
// message for a uuid to the pid it holds until it sees that child terminate, so a
// message sent in between is a dead letter: a live row (even one restart recovery put
// back in the queue, whose promotion sends StartAgent) must keep its actor.
//
// Unmanaged rows (agents discovery found in the user's own herdr sessions) have no
// actor of their own while nothing is asked of them: discovery writes their status
// straight through the store actor (compare-and-set on status and input_seq, so a send
// in between wins). A send or a kill --force gets them an agent actor like any other,
// whose ops reach the agent's own session ([agentWork.sess]) and re-read the row first.
//
// # Messages and who may Request whom
//
// Requests (a reply is expected) only ever go down this list, so no cycle can form:
//
//	request goroutines  → store            Write → WriteResult, AddBarriers → BarriersAdded,
//	                                       StoreStats → StoreStatsResult
//	request goroutines  → agents → <agent> SendInput → SendOutcome, KillAgent → KillOutcome,
//	                                       AdoptAgent → AdoptOutcome (agents Forwards, so the
//	                                       reply goes straight back)
//	gc                  → agents → <agent> ReapAgent → ReapResult (Forwarded; the reply
//	                                       arrives at gc as a message)
//	reconciler          → agents → <agent> ReconcileAgent → ReconcileResult (Forwarded; the
//	                                       reply arrives at the reconciler as a message)
//	the facade          → reconciler       DriftQuery → Drift (server.status)
//	the facade          → fleet            FleetQuery → FleetProgress (server.status)
//	request goroutines  → loops → loop-<uuid> LoopOp → LoopOpResult (loops hands it on;
//	                                       until restart recovery has read the live runs
//	                                       and loops it holds it, and LoopCreated, behind
//	                                       the recovery ops)
//	request goroutines  → loops            AwaitLoopsRecovered → AwaitLoopsRecovered (held
//	                                       likewise; __debug.insert_loop_run)
//	loop op goroutines  → store, agents    Write → WriteResult; a stop's barrier kill goes
//	                                       through the facade's Kill (agents → <agent>)
//	queue               → store            Write(promotion) → WriteResult
//	gc sweep goroutine  → store            Write(expire attach leases), Write(forget a batch of
//	                                       ended agents: retention, docs/lifecycle.md §12.4;
//	                                       their data folders go after the commit) → WriteResult
//	discovery goroutine → store, herdr     Write(one session's changes) → WriteResult; the
//	                                       herdr CLI and the user sessions' connection actors
//	subscription, dash-<n> → store         Bounds → BoundsResult, WatchOpen → WatchOpenResult
//	ws-<n>              → store            SubscribeLog → LogSubscribed (its subscribes wait for it)
//	the facade          → remote           RemoteStatsQuery → RemoteStats (server.status)
//	stream frame goroutines → agents → <agent> SendInput (source remote) → SendOutcome,
//	                                       sendKeys → keysSent (a cancel's interrupt, a verdict's answer)
//	wait-<n>            → store            Bounds → BoundsResult (confirms its Subscribe)
//	notify              → store            Bounds → BoundsResult (the first scan's head)
//	fleet               → store            Bounds → BoundsResult (the first batch's head)
//	notify scan and record goroutines → store Write(enqueue deliveries with the cursor;
//	                                       a target's batch of outcomes) → WriteResult; a
//	                                       herdr target's attempt → herdr supervisor (notification.show)
//	fleet batch goroutine → the fleet      the stream's last seq of this host, then one batch of
//	                                       publishes and their acks (NATS, bounded: docs/fleet.md §5);
//	                                       it reads the store's read pool and writes no row
//	fleet heartbeat goroutine → the fleet  one write of the member's agents (a plain agent.ls
//	                                       read from the read pool) to the seen bucket
//	                                       (NATS, bounded: docs/fleet.md §4.4)
//	fleet-leases reconcile goroutine → the fleet  the slots used and queued (read pool), then
//	                                       the leases' creates, renewals and deletes (NATS KV,
//	                                       bounded by the lease TTL and 10 s: docs/fleet.md §4.7);
//	                                       it writes no row
//	op goroutines       → store, herdr     (edge code of an agent actor, see below)
//	request goroutines  → herdr supervisor driver operations (herdr/doc.go)
//	reconcile pass      → herdr supervisor pane.list (and, when the owned session does
//	                                       not answer, ensureOwned's pings)
//	request goroutines  → herdr supervisor an agent.wait's pane check before it settles
//	                                       (pane.list)
//
// Plain sends (no reply): ws-<n> → remote (hubRegister, replayAcquire, replayRelease) and
// remote → ws-<n> (replayGranted, streamSuperseded, streamRevoked); store → ws-<n>
// (LogCommitted after every commit that appended to its agent's session log); the facade
// → remote (hubRevoke after a token rotation or revocation, or a dashboard revocation:
// then for every agent; a dashboard feed is reached by the facade itself, which keeps
// the open feeds and closes a revoked one's Revoked channel) and → agents → <agent>
// (drainInbox after text went to an agent's inbox; an agent actor also queues a drain
// for itself when its status lets waiting text through); the sink's writer goroutine →
// ws-<n> (streamRoom, once half its queue is free); the WebSocket face → ws-<n>
// (StreamSubscribe, streamGone); op goroutines and the discovery goroutine → agents →
// <agent> (sendKeys without a reply: the interrupt keys of a turn an interrupt budget cut,
// docs/usage.md §8.3); ws-<n> → agents → <agent> (feedTools, every second while
// the agent it streams is working: the agent actor queues one tool-feed op). A ws-<n> reads the session log from the store's read
// pool only while it holds a replay slot; it never sends a Request to anyone but the
// store. subscription, dash-<n> and wait-<n> → store (Subscribe, Unsubscribe,
// Pin, Unpin); store → subscription, dash-<n> and wait-<n> (EventsCommitted after every
// commit, PinDropped); request goroutines → store (LiftBarriers, on every way out of a kill);
// connection writer callbacks → subscription, the dashboard sink's writer → dash-<n>
// (credit for written frames); server → conn
// (stopConn); queue → agents (StartAgent per promoted row, CancelSpawn/KillAgent for
// deadlines, drainInbox per agent a quota window's reset resumed); gc → agents → <agent> (ParkAgent; a park or reap already waiting behind
// an op absorbs a repeat); gc → queue (PokeQueue after a reap freed a slot); reconciler → queue (PokeQueue after a
// repair freed a slot); <agent> →
// monitor (TrackPane when the pane to watch changes; WatchActive when the agent turns active
// or quiet, which sets the monitor's pace); an agent actor's timer → itself
// (verdictCheck, VerdictRecheck after a verdict's answer reached the pane; callCheck, CallRecheck
// while a blocked agent with approvals mounted shows no call waiting); the facade → monitor (SetAgents
// and SetReconciler, once at start); monitor → agents → <agent> (StatusReport, only when herdr's view of the
// pane changed); monitor → reconciler and request goroutines (an agent.wait that found a
// settled member's pane gone) → reconciler (ReconcileNow with Hint: a pass now that marks
// lost but ends no lost row); request goroutines → queue (PokeQueue) and → agents (CancelSpawn); op
// goroutines → their agent actor (opDone); timers → <agent> (recheck; stallTick, the stall
// probe of a working turn, docs/lifecycle.md §10.7), → monitor, queue,
// gc, reconciler, discovery (their ticks); discovery → herdr supervisor (Forget, for a user
// session that is gone); the discovery goroutine → discovery (discDone); loops → loop-<uuid>
// (fireDue, stopRun, recoverRun, recoverLoop) and loop-<uuid> → loops (loopIdle, loopsHint); notify →
// store (Subscribe, Pin and, at Stopping, Unsubscribe, Unpin) and store → notify
// (EventsCommitted, PinDropped); fleet → store (Subscribe, Pin and, at Stopping, Unsubscribe,
// Unpin) and store → fleet (EventsCommitted, PinDropped); a fleet batch goroutine → fleet
// (fleetPublished), a fleet heartbeat goroutine → fleet (fleetSeenDone), timers → fleet
// (fleetRetryTick, fleetSeenTick); fleet-leases → store (Subscribe and, at Stopping,
// Unsubscribe) and store → fleet-leases (EventsCommitted); a fleet-leases reconcile
// goroutine → fleet-leases (leasesDone), timers → fleet-leases (leasesTick, the renewal
// pace), fleet-leases → queue (PokeQueue when it holds more slots, or the fleet went down
// and the own caps alone hold); the queue's pass reads the slots held from the lease
// book (a lock, on the store actor's goroutine; docs/fleet.md §4.7); notify → notify/<target> (notifyPoke after a scan queued
// deliveries for it); a scan goroutine → notify (notifyScanned), a target's read, attempt
// and record goroutines → their target (notifyDue, notifyAttempted, notifyRecorded),
// timers → notify (retry and pace ticks) and notify/<target> (due ticks). An attempt's HTTP call, command or herdr call
// runs on its goroutine, bounded by the target's timeout; the store actor only ever
// applies the small writes that enqueue and record, so a slow or dead target never slows
// a commit (docs/notify.md §5). A loop's
// op goroutines → their loop actor (loopOpDone, watchRun, stopStarted, stopWaiter,
// stopOver), a run's process waiter → its loop actor (runExited), a stop's TERM–grace–KILL
// goroutine → its loop actor (stopFinished). A run's process outlives the server: its
// waiter is not waited for at a stop, and the next start adopts the run by pid and start
// time. A reconciliation pass reads the rows and the pane list
// on a goroutine (edge code; when the owned session does not answer and rows hold panes
// in it, that goroutine starts it again through AgentEnv.ensureOwned, as a spawn's op
// goroutine does) and only hands differences to agent actors, which check each again
// (with one pane.get) before applying it. The store actor, the monitor and the agent actors never send a
// Request to anyone.
//
// An agent actor never blocks: it loads its row once when it starts and keeps it
// current from the results of its own ops (and, from the same results, herdr's
// completion_seq baseline of the open turn, the one turn fact kept in memory only:
// docs/decisions.md D10). herdr's reports are decided in memory by
// decideTurn (a pure function of the row, the observation and the tuning); a report
// that changes nothing costs no SQL, no write and no goroutine, and a timing threshold
// (stable idle, the end of the fast-turn grace window) re-decides from a timer. Work
// that does I/O runs as an op on an op goroutine (edge code) that may block on herdr, on
// store futures and on git subprocesses (an agent's worktree, made in its spawn and, once
// any op found its row ended, removed before that op reports: actors/worktree.go, each
// git call bounded), and reports back with opDone; requests that arrive meanwhile wait
// in the actor's queue, which makes the actor the agent's move lock: park, un-park
// (inside a send, or a turn step when herdr reports a parked agent working or blocked),
// reap and move recovery never overlap a send or a kill of the same agent. Moves are
// two-phase (actors/agent_move.go): a compare-and-set takes the move_state/move_token lease
// with agent.move_requested in one transaction, then Session.Move, then a compare-and-set
// on the token applies status, location and agent.move_applied (or rolls the lease back
// with move_applied ok:false). A move a crash left in flight is finished or rolled back
// by the recoverAgent op at restart (by the pane's workspace), or by the next send.
//
// A kill of a starting row does not queue behind the spawn: the facade sets the cancel
// interlock through the store and sends CancelSpawn, and the pipeline closes any pane
// it made at its next checkpoint. Nothing blocks on Result() inside a Receive; an actor
// that needs an answer uses Request (the reply arrives as a message).
//
// # Writes, events and kill barriers
//
// Every state change is a store.Op run by the store actor. Ops that queue up are
// applied in one transaction (the actor appends each Write to a batch and sends itself
// a flush message, so every Write already in the mailbox joins the batch), each op under
// its own savepoint so a failing op rolls back alone. Event rows are written inside the
// op that makes the change, so events.seq is gapless and a committed change always has
// its events. After a commit the store actor sends EventsCommitted to every subscriber
// and trims retention, never past the lowest pin held by an open watch.open.
//
// Kill barriers (docs/decisions.md D4) are store-actor state: AddBarriers and
// LiftBarriers are handled in its Receive, never inside an op, and the ops that must
// respect them (agent.run's insert, the promotion pass) read them through a
// BarrierView on the store actor's goroutine. A kill lifts its barriers on every way
// out, so no failed or timed-out write can leave one standing.
//
// # Shutdown order (server.stop, SIGTERM, SIGINT)
//
//  1. The listener closes; the accept loop ends (no new connections).
//  2. New requests are refused; requests in flight see their context canceled and get
//     up to 2 s to write their answers (a blocked agent.wait answers with the current
//     state).
//  3. Every connection actor writes a final server_stopping frame for each of its open
//     subscriptions, marks its writer closing (later frames are dropped) and stops;
//     stopping a connection stops its subscription children first. Up to 150 ms for
//     those frames to flush, then every connection is closed.
//  4. Reader goroutines end with their sockets; the remaining request goroutines are
//     waited for. Then the remote listener (socketapi/ws) stops accepting and ends
//     every stream connection and dashboard feed: each ws-<n> and dash-<n> stops, its socket closes, and the client
//     frames still being served (a cancel's keys, an inject's delivery) finish while the
//     agent actors are still up (bounded, 3 s).
//  5. [System.Stop]: the loops (a stop's grace ends at once, the run stays stopping for the
//     next start), the discovery, the gc, the reconciler, the monitor, the queue, the remote hub, the notifier, the fleet publisher and the fleet leases stop, in that order (an
//     attempt in flight is canceled and left pending, so it is sent again after the restart; no more
//     sweeps, polls or promotions; a reconcile pass in flight, which may be waiting for
//     herdr or starting the owned session, is canceled, and so is the monitor's poll in
//     flight (a slow herdr's answer is not waited for); a ReapResult arriving after gc stopped goes to dead
//     letters, and the next start's queue pass promotes into the freed slot); the agents
//     actor stops its children — each answers the ops still queued with server_error
//     cause stopping, so no asker waits out its timeout — whose op goroutines see their context canceled at the
//     next checkpoint and are waited for (they may still be writing; an op cut off by
//     the stop never ends its row failed); then the herdr supervisor and its session
//     actors stop. A spawn cut off here is resumed (pane recorded) or put back at its
//     place in the queue (no pane) by restart recovery.
//     With a fleet, the member stops answering fleet calls before [System.Stop]
//     (those in flight are waited for), and after it lets its fleet-wide slots go
//     (bounded, 2 s; else they go after the lease TTL), its NATS connection drains, and the
//     embedded hub shuts down, after it (docs/fleet.md §5).
//  6. The store actor is poisoned last, so every Write queued before it is applied,
//     and waited for; then the system shuts down, the database closes, the socket is
//     unlinked and the instance lock released.
//
// Agent panes are never touched by a stop.
package actors

import _ "github.com/orcr-go/orcr/actors/actorkit" // for the doc links
