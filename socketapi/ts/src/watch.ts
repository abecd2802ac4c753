// Watch: watch.open's snapshot and the events after it, under one cursor
// (docs/protocol.md §5.7, §7.5).

import type * as G from "./generated.js";
import { Pattern } from "./path.js";
import type { StreamFrame, Subscription } from "./wire.js";

/** The snapshot document (api.snapshot, watch.open's snapshot). */
export type Snapshot = G.ApiSnapshotResult;
/** An agent row (agent.ls, snapshots, and the `agent` of agent events). */
export type AgentRow = NonNullable<G.AgentLsResult["agents"]>[number];

/** The control frame that ends a watch whose cursor fell behind retention (docs/protocol.md §7.2). */
export interface CursorExpiredEvent {
  kind: "cursor_expired";
  oldest_seq?: number;
  [key: string]: unknown;
}

/**
 * An event a watch yields: one of the schema's event kinds (generated from it, narrowed
 * by `kind`), or the cursor_expired control frame.
 */
export type WatchEvent = G.OrcrEvent | CursorExpiredEvent;

/** Options of orcr.watch(). */
export interface WatchOptions {
  /** Only agents whose path matches (resolved against the scope), or one uuid. */
  pattern?: string;
  /** Only agents of this provider. */
  agent?: string;
  /** Only agents in this status (at the snapshot or at some event). */
  status?: string;
  /** true: only managed agents; false: only unmanaged ones. */
  managed?: boolean;
  /** Sent for compatibility; watch.open ignores it (the snapshot is the cursor). */
  sinceSeq?: number;
}

/**
 * WatchFilter applies WatchOptions client-side (watch.open reads no params): the
 * snapshot's agents and queue are narrowed to the rows that match, and an agent event
 * passes when the row it carries matches or when the agent matched before (in the
 * snapshot or an earlier event), so a watcher also sees a matching agent change and leave.
 * Events of no agent (loops, runs, control frames) always pass.
 * @internal
 */
export class WatchFilter {
  readonly #pattern: Pattern | null;
  readonly #uuid: string | null;
  readonly #opts: WatchOptions;
  readonly #known = new Set<string>();

  /** pattern is already resolved: "/…" absolute, or a uuid (prefix). */
  constructor(opts: WatchOptions, pattern: string | undefined) {
    this.#opts = opts;
    this.#uuid = pattern !== undefined && !pattern.startsWith("/") ? pattern.toLowerCase() : null;
    this.#pattern = pattern !== undefined && pattern.startsWith("/") ? new Pattern(pattern) : null;
  }

  /** Whether the filter narrows anything. */
  get active(): boolean {
    const o = this.#opts;
    return this.#pattern !== null || this.#uuid !== null || o.agent !== undefined || o.status !== undefined || o.managed !== undefined;
  }

  matches(row: AgentRow): boolean {
    const o = this.#opts;
    const uuid = String(row.uuid ?? "");
    if (this.#uuid !== null && !uuid.startsWith(this.#uuid)) return false;
    if (this.#pattern && !this.#pattern.match(String(row.path ?? ""))) return false;
    if (o.agent !== undefined && row.agent !== o.agent) return false;
    if (o.status !== undefined && row.status !== o.status) return false;
    if (o.managed !== undefined && (row.managed ?? true) !== o.managed) return false;
    return true;
  }

  snapshot(s: Snapshot): Snapshot {
    if (!this.active) return s;
    const agents = (s.agents ?? []).filter((a) => this.matches(a));
    for (const a of agents) this.#known.add(String(a.uuid));
    const queue = (s.queue ?? []).filter((q) => this.#known.has(String(q.uuid)));
    return { ...s, agents, queue };
  }

  passes(ev: WatchEvent): boolean {
    if (!this.active) return true;
    const row = agentRow(ev);
    if (row) {
      if (this.matches(row)) {
        this.#known.add(String(row.uuid));
        return true;
      }
      return this.#known.has(String(row.uuid));
    }
    if (!agentKind(ev)) return true;
    const uuid = "uuid" in ev && typeof ev.uuid === "string" ? ev.uuid : ev.ref_uuid;
    if (typeof uuid !== "string") return true;
    return this.#known.has(uuid);
  }
}

/** agentRow is the row an event carries: every agent.* and queue.* event has it (docs/decisions.md D2). */
function agentRow(ev: WatchEvent): AgentRow | undefined {
  if (!("agent" in ev)) return undefined;
  const row = ev.agent;
  return row !== null && typeof row === "object" && !Array.isArray(row) ? (row as AgentRow) : undefined;
}

/** agentKind: the kinds about one agent (agent.*, queue.*, attach.*); loops, providers and control frames are not. */
function agentKind(ev: WatchEvent): boolean {
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
export class Watch implements AsyncIterable<WatchEvent> {
  readonly snapshot: Snapshot;
  readonly snapshotSeq: number;
  readonly subscription: number | undefined;
  lastSeq: number;
  readonly #sub: Subscription<G.WatchOpenResult>;
  readonly #filter: WatchFilter | null;

  /** @internal — watches come from orcr.watch(). */
  constructor(sub: Subscription<G.WatchOpenResult>, filter: WatchFilter | null = null) {
    this.#sub = sub;
    this.#filter = filter;
    const init = (sub.initial ?? {}) as G.WatchOpenResult & { from_seq?: number };
    const snap = (init.snapshot ?? {}) as Snapshot;
    this.snapshot = filter ? filter.snapshot(snap) : snap;
    this.snapshotSeq = Number(init.snapshot_seq ?? init.from_seq ?? 0);
    this.subscription = typeof init.subscription === "number" ? init.subscription : undefined;
    this.lastSeq = this.snapshotSeq;
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#sub.closed;
  }

  /** frames yields the event frames that pass the filter. */
  async *frames(): AsyncGenerator<StreamFrame, void, undefined> {
    try {
      for (;;) {
        const r = await this.#sub.next();
        if (r.done) return;
        const frame = r.value;
        const ev = (frame.event ?? { kind: "unknown" }) as WatchEvent;
        if (frame.seq > 0) this.lastSeq = frame.seq;
        if (this.#filter && !this.#filter.passes(ev)) continue;
        yield frame;
        if (frame.seq === 0 && (ev.kind === "server_stopping" || ev.kind === "cursor_expired")) {
          this.close();
          return;
        }
      }
    } finally {
      // Leaving a for-await loop early (break, throw) ends the watch, as it does for a Subscription.
      if (!this.#sub.closed) this.close();
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent, void, undefined> {
    for await (const frame of this.frames()) yield frame.event as WatchEvent;
  }

  /** close drops the connection; the server stops its pump. */
  close(): void {
    this.#sub.close();
  }
}
