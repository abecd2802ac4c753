import type { Core } from "./core.js";
import type * as G from "./generated.js";
/** A loop row (loop.ls). */
export type LoopRow = NonNullable<G.LoopLsResult["loops"]>[number];
/** The loop loop.create made: its row, argv and cancel command. */
export type CreatedLoop = NonNullable<G.LoopCreateResult["loop"]>;
/** One line of loop.logs. */
export type LoopLogLine = NonNullable<G.LoopLogsResult["lines"]>[number];
/** A run row (loop.run.ls). */
export type RunRow = NonNullable<G.LoopRunLsResult["runs"]>[number];
/** The run loop.run.start made, with its id and data directory. */
export type StartedRun = NonNullable<G.LoopRunStartResult["run"]> & {
    runId: string;
    dataDir: string;
};
/** Options of orcr.loop.create. */
export interface LoopCreateOptions {
    /** The loop's name: one segment; `{rand}` is expanded by the server. */
    name: string;
    /** The argv each run executes (no shell). */
    command: string[];
    /** The runs' working directory (default process.cwd()). */
    cwd?: string;
    /** A five-field cron expression (exactly one of cron and onceAt). */
    cron?: string;
    /** A one-shot time: a duration from now, RFC 3339, or local `YYYY-MM-DD HH:MM`. */
    onceAt?: string;
    /** Runs at once (default 1). */
    maxConcurrency?: number;
    /** What a fire at capacity does: "queue" (default) or "skip". */
    overlap?: "queue" | "skip";
    /** Stop a run after this duration ("10m"). */
    timeout?: string;
}
/** Options of orcr.loop.rm. */
export interface LoopRmOptions {
    /** Also stop the loop's running runs (the call waits for them). */
    killActive?: boolean;
}
/** Options of orcr.loop.ls. */
export interface LoopLsOptions {
    /** Include ended loops. */
    all?: boolean;
    /** Only loops in this status. */
    status?: string;
    /** Only these loops. */
    names?: string[];
}
/** Options of orcr.loop.logs. */
export interface LoopLogsOptions {
    /** A run id or run uuid (default: the latest run). */
    run?: string;
    /** "command" (the run's output) or "orcr" (the scheduler's events); both by default. */
    source?: "orcr" | "command";
    /** Only the last N lines. */
    tail?: number;
}
/** Options of orcr.loop.run.stop. */
export interface LoopRunStopOptions {
    /** The run to stop (default: every active run). */
    runId?: string;
}
/** Options of orcr.loop.run.ls. */
export interface LoopRunLsOptions {
    /** Include ended runs. */
    all?: boolean;
    /** Only runs in this status. */
    status?: string;
}
/** orcr.loop.run. */
export interface LoopRunApi {
    /** start starts a manual run (loop.run.start `{name}`): the run, plus `runId` and `dataDir` = `<home>/data/<name>/<run_id>`. */
    start(name: string): Promise<StartedRun>;
    /** stop stops a loop's runs, or one (loop.run.stop `{name, run?}`); the raw result. */
    stop(name: string, opts?: LoopRunStopOptions): Promise<G.LoopRunStopResult>;
    /** ls lists a loop's runs (loop.run.ls `{name, all, status?}`). */
    ls(name: string, opts?: LoopRunLsOptions): Promise<RunRow[]>;
}
/** orcr.loop. */
export interface LoopApi {
    /** create makes a durable loop (loop.create): the created loop. */
    create(opts: LoopCreateOptions): Promise<CreatedLoop>;
    /** pause pauses a loop (loop.pause `{names: [name]}`); the raw result. */
    pause(name: string): Promise<G.LoopPauseResult>;
    /** resume resumes a loop (loop.resume `{names: [name]}`); the raw result. */
    resume(name: string): Promise<G.LoopResumeResult>;
    /** rm removes a loop (loop.rm `{names: [name], kill_active}` with the caller); the raw result. */
    rm(name: string, opts?: LoopRmOptions): Promise<G.LoopRmResult>;
    /** ls lists loops (loop.ls `{all?, status?, names?}`). */
    ls(opts?: LoopLsOptions): Promise<LoopRow[]>;
    /** logs reads a loop's run output and events (loop.logs `{name, run?, source?, tail?}`). */
    logs(name: string, opts?: LoopLogsOptions): Promise<LoopLogLine[]>;
    readonly run: LoopRunApi;
}
/** loopApi builds orcr.loop on a client's core. @internal */
export declare function loopApi(core: Core): LoopApi;
