import { type Core } from "./core.js";
import type * as G from "./generated.js";
/** The agent row agent.run returns. */
export type RunAgent = NonNullable<G.AgentRunResult["agent"]>;
/** One transcript entry (docs/providers.md §6.1). */
export type LogEntry = NonNullable<G.AgentLogsResult["entries"]>[number];
/** agent.wait's result. */
export type WaitResult = G.AgentWaitResult;
/** agent.send's result. */
export type SendResult = G.AgentSendResult;
/** agent.kill's result. */
export type KillResult = G.AgentKillResult;
/** Options of a wait. */
export interface WaitOptions {
    /** Give up after this duration ("30s", "10m"); the result then has `timed_out: true`. */
    timeout?: string;
}
/** Options of orcr.agent.wait, which may wait on several agents. */
export interface AgentWaitOptions extends WaitOptions {
    /**
     * Answer as soon as one target settles: `first_settled` is its uuid, and targets not
     * settled have reason `pending`.
     */
    any?: boolean;
}
/** Options of logs(). */
export interface LogsOptions {
    /** Only the last N entries. */
    tail?: number;
}
/** Options of followLogs(). */
export interface FollowLogsOptions {
    /** The polling interval in ms (default 500). */
    intervalMs?: number;
    /** Of the entries already there, yield only the last N. */
    tail?: number;
    /** Ends the iteration when aborted. */
    signal?: AbortSignal;
}
/** Options of a kill. */
export interface KillOptions {
    /** Also kill unmanaged agents (default false). */
    force?: boolean;
}
/** The default polling interval of followLogs. */
export declare const FOLLOW_INTERVAL_MS = 500;
/**
 * AgentHandle is one agent: `uuid`, `path`, `name` (its last segment), `dataDir` (its
 * ORCR_AGENT_DATA_DIR, which outlives the agent) and `row`, the row agent.run answered
 * with. Every call targets the uuid.
 */
export declare class AgentHandle {
    #private;
    readonly uuid: string;
    readonly path: string;
    readonly name: string;
    readonly dataDir: string;
    readonly row: RunAgent;
    /** @internal — handles come from orcr.agent.run. */
    constructor(core: Core, row: RunAgent);
    /** wait blocks until the agent settles (agent.wait `{targets: [uuid], timeout?}`); the raw result. */
    wait(opts?: WaitOptions): Promise<WaitResult>;
    /** send delivers a prompt (agent.send `{target: uuid, prompt}`); the raw result. */
    send(prompt: string): Promise<SendResult>;
    /** logs reads the transcript (agent.logs `{target: uuid, last_response: false, tail?}`): its entries. */
    logs(opts?: LogsOptions): Promise<LogEntry[]>;
    /**
     * lastResponse is the text of the agent's final response (agent.logs `{target: uuid,
     * last_response: true}`); none is TranscriptUnavailable.
     */
    lastResponse(): Promise<string>;
    /** kill ends the agent (agent.kill `{targets: [uuid], force}`); the raw result. */
    kill(opts?: KillOptions): Promise<KillResult>;
    /**
     * followLogs yields the transcript's entries as they appear: those already there, then
     * new ones, polling agent.logs every intervalMs. A transcript not readable yet
     * (TranscriptUnavailable) counts as no entries. Once agent.ls `{pattern: uuid, all:
     * true}` shows the agent ended, one last poll drains what is left and the iteration
     * ends. Leaving the loop or aborting the signal stops the polling.
     */
    followLogs(opts?: FollowLogsOptions): AsyncGenerator<LogEntry, void, undefined>;
}
