// Watch: watch.open's snapshot and the events after it, under one cursor
// (docs/protocol.md §5.7, §7.5).
import { Pattern } from "./path.js";
/**
 * WatchFilter applies WatchOptions client-side (watch.open reads no params): the
 * snapshot's agents and queue are narrowed to the rows that match, and an agent event
 * passes when the row it carries matches or when the agent matched before (in the
 * snapshot or an earlier event), so a watcher also sees a matching agent change and leave.
 * Events of no agent (loops, runs, control frames) always pass.
 * @internal
 */
export class WatchFilter {
    #pattern;
    #uuid;
    #opts;
    #known = new Set();
    /** pattern is already resolved: "/…" absolute, or a uuid (prefix). */
    constructor(opts, pattern) {
        this.#opts = opts;
        this.#uuid = pattern !== undefined && !pattern.startsWith("/") ? pattern.toLowerCase() : null;
        this.#pattern = pattern !== undefined && pattern.startsWith("/") ? new Pattern(pattern) : null;
    }
    /** Whether the filter narrows anything. */
    get active() {
        const o = this.#opts;
        return this.#pattern !== null || this.#uuid !== null || o.agent !== undefined || o.status !== undefined || o.managed !== undefined;
    }
    matches(row) {
        const o = this.#opts;
        const uuid = String(row.uuid ?? "");
        if (this.#uuid !== null && !uuid.startsWith(this.#uuid))
            return false;
        if (this.#pattern && !this.#pattern.match(String(row.path ?? "")))
            return false;
        if (o.agent !== undefined && row.agent !== o.agent)
            return false;
        if (o.status !== undefined && row.status !== o.status)
            return false;
        if (o.managed !== undefined && (row.managed ?? true) !== o.managed)
            return false;
        return true;
    }
    snapshot(s) {
        if (!this.active)
            return s;
        const agents = (s.agents ?? []).filter((a) => this.matches(a));
        for (const a of agents)
            this.#known.add(String(a.uuid));
        const queue = (s.queue ?? []).filter((q) => this.#known.has(String(q.uuid)));
        return { ...s, agents, queue };
    }
    passes(ev) {
        if (!this.active)
            return true;
        const row = agentRow(ev);
        if (row) {
            if (this.matches(row)) {
                this.#known.add(String(row.uuid));
                return true;
            }
            return this.#known.has(String(row.uuid));
        }
        if (!agentKind(ev))
            return true;
        const uuid = "uuid" in ev && typeof ev.uuid === "string" ? ev.uuid : ev.ref_uuid;
        if (typeof uuid !== "string")
            return true;
        return this.#known.has(uuid);
    }
}
/** agentRow is the row an event carries: every agent.* and queue.* event has it (docs/decisions.md D2). */
function agentRow(ev) {
    if (!("agent" in ev))
        return undefined;
    const row = ev.agent;
    return row !== null && typeof row === "object" && !Array.isArray(row) ? row : undefined;
}
/** agentKind: the kinds about one agent (agent.*, queue.*, attach.*); loops, providers and control frames are not. */
function agentKind(ev) {
    switch (ev.kind) {
        case "attach.started":
        case "attach.ended":
        case "queue.promoted":
            return true;
        default:
            return ev.kind.startsWith("agent.");
    }
}
/**
 * Watch is an open watch.open stream: `snapshot` is the state at `snapshotSeq`, and
 * iterating yields each later event (`{kind, ref_uuid?, …payload}`), none missed, none
 * twice, until the server closes the stream. Control events have no seq: on
 * `server_stopping` or `cursor_expired` the stream ends and the consumer opens a new
 * watch. `frames()` yields the whole frames (with `seq`), `lastSeq` is the seq of the
 * latest event yielded, close() drops the connection.
 */
export class Watch {
    snapshot;
    snapshotSeq;
    subscription;
    lastSeq;
    #sub;
    #filter;
    /** @internal — watches come from orcr.watch(). */
    constructor(sub, filter = null) {
        this.#sub = sub;
        this.#filter = filter;
        const init = (sub.initial ?? {});
        const snap = (init.snapshot ?? {});
        this.snapshot = filter ? filter.snapshot(snap) : snap;
        this.snapshotSeq = Number(init.snapshot_seq ?? init.from_seq ?? 0);
        this.subscription = typeof init.subscription === "number" ? init.subscription : undefined;
        this.lastSeq = this.snapshotSeq;
    }
    /** Whether the stream has ended. */
    get closed() {
        return this.#sub.closed;
    }
    /** frames yields the event frames that pass the filter. */
    async *frames() {
        try {
            for (;;) {
                const r = await this.#sub.next();
                if (r.done)
                    return;
                const frame = r.value;
                const ev = (frame.event ?? { kind: "unknown" });
                if (frame.seq > 0)
                    this.lastSeq = frame.seq;
                if (this.#filter && !this.#filter.passes(ev))
                    continue;
                yield frame;
                if (frame.seq === 0 && (ev.kind === "server_stopping" || ev.kind === "cursor_expired")) {
                    this.close();
                    return;
                }
            }
        }
        finally {
            // Leaving a for-await loop early (break, throw) ends the watch, as it does for a Subscription.
            if (!this.#sub.closed)
                this.close();
        }
    }
    async *[Symbol.asyncIterator]() {
        for await (const frame of this.frames())
            yield frame.event;
    }
    /** close drops the connection; the server stops its pump. */
    close() {
        this.#sub.close();
    }
}
