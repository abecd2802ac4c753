import type * as G from "./generated.js";
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
export declare class WatchFilter {
    #private;
    /** pattern is already resolved: "/…" absolute, or a uuid (prefix). */
    constructor(opts: WatchOptions, pattern: string | undefined);
    /** Whether the filter narrows anything. */
    get active(): boolean;
    matches(row: AgentRow): boolean;
    snapshot(s: Snapshot): Snapshot;
    passes(ev: WatchEvent): boolean;
}
/**
 * Watch is an open watch.open stream: `snapshot` is the state at `snapshotSeq`, and
 * iterating yields each later event (`{kind, ref_uuid?, …payload}`), none missed, none
 * twice, until the server closes the stream. Control events have no seq: on
 * `server_stopping` or `cursor_expired` the stream ends and the consumer opens a new
 * watch. `frames()` yields the whole frames (with `seq`), `lastSeq` is the seq of the
 * latest event yielded, close() drops the connection.
 */
export declare class Watch implements AsyncIterable<WatchEvent> {
    #private;
    readonly snapshot: Snapshot;
    readonly snapshotSeq: number;
    readonly subscription: number | undefined;
    lastSeq: number;
    /** @internal — watches come from orcr.watch(). */
    constructor(sub: Subscription<G.WatchOpenResult>, filter?: WatchFilter | null);
    /** Whether the stream has ended. */
    get closed(): boolean;
    /** frames yields the event frames that pass the filter. */
    frames(): AsyncGenerator<StreamFrame, void, undefined>;
    [Symbol.asyncIterator](): AsyncGenerator<WatchEvent, void, undefined>;
    /** close drops the connection; the server stops its pump. */
    close(): void;
}
