import type { Env } from "./wire.js";
/** The loop a context belongs to. */
export interface LoopMembership {
    /** The loop's name: the first segment of the path. */
    name: string;
    /** The run id: the second segment of the path. */
    runId: string;
    /** The run's path, `<loop>/<run_id>`. */
    path: string;
    /** The loop's data directory (ORCR_LOOP_DATA_DIR). */
    dataDir: string;
}
/**
 * OrcrContext says what the process is: an agent (its pane has ORCR_AGENT_DATA_DIR, ORCR_ID
 * and ORCR_PATH), a loop run's command (ORCR_ID, ORCR_PATH and ORCR_LOOP_DATA_DIR without
 * ORCR_AGENT_DATA_DIR) or a root shell (anything else). `scope` is where relative paths
 * land: an agent's path without its name, a run's whole path; none at root.
 */
export interface OrcrContext {
    kind: "agent" | "loopRun" | "root";
    /** ORCR_ID: the agent's or the run's uuid. */
    id?: string;
    /** ORCR_PATH. */
    path?: string;
    /** Where relative paths land ("" or absent: the root). */
    scope?: string;
    /** The agent's data directory, or the run's (`<loop data dir>/<run_id>`). */
    dataDir?: string;
    /** Who started the agent (ORCR_PARENT_ID, ORCR_PARENT_PATH), when known. */
    parent?: {
        id?: string;
        path?: string;
    };
    /** The loop the agent or run belongs to. */
    loop?: LoopMembership;
}
/** loopNameFrom is the first segment of a path: the loop name of a run path. */
export declare function loopNameFrom(path: string): string;
/**
 * fromEnv reads the context from env (process.env by default). Empty variables count as
 * unset.
 */
export declare function fromEnv(env?: Env): OrcrContext;
