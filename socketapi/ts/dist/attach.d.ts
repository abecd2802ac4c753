import type { Core } from "./core.js";
import type * as G from "./generated.js";
/** How soon a failing attach command counts as herdr refusing the pane id (then the fallback runs). */
export declare const ATTACH_REFUSAL_WINDOW_MS = 2000;
/** The heartbeat interval when the lease names no ttl. */
export declare const DEFAULT_HEARTBEAT_MS = 5000;
/**
 * AttachHandle is a lease taken with orcr.agent.prepareAttach: `command` is the argv that
 * attaches a terminal to the agent's pane, `fallbackCommand` the one to run when herdr
 * refuses the pane id, `leaseId`, `uuid`, `path`, `ttlMs` (the lease's lifetime; heartbeat
 * before it passes) and `takeover`.
 */
export declare class AttachHandle {
    #private;
    readonly command: string[];
    readonly fallbackCommand: string[] | undefined;
    readonly leaseId: string;
    readonly uuid: string;
    readonly path: string;
    readonly ttlMs: number | undefined;
    readonly takeover: boolean;
    /** @internal — handles come from orcr.agent.prepareAttach. */
    constructor(core: Core, res: G.AgentAttachPrepareResult);
    /** heartbeat extends the lease (agent.attach.heartbeat `{lease_id}`); false when the lease is gone. */
    heartbeat(): Promise<boolean>;
    /** release gives the lease back (agent.attach.release `{lease_id}`); false when it was already gone. */
    release(): Promise<boolean>;
    /**
     * run executes the attach command on this process's terminal (stdio inherited),
     * heartbeating every max(500 ms, ttl/2) (5 s without a ttl), and releases the lease when
     * it ends, whatever happened. When the command fails within 2 s and there is a
     * fallback command, the fallback runs instead. It resolves to the command's exit code
     * (128 + the signal number when a signal ended it).
     */
    run(): Promise<number>;
}
