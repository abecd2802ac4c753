import { AttachHandle } from "./attach.js";
import { type OrcrContext } from "./context.js";
import { GeneratedClient } from "./generated.js";
import type * as G from "./generated.js";
import { AgentHandle, type AgentWaitOptions, type KillOptions, type KillResult, type WaitResult } from "./handle.js";
import { type LoopApi } from "./loops.js";
import { Watch, type AgentRow, type Snapshot, type WatchOptions } from "./watch.js";
import { Transport, type Env } from "./wire.js";
/** What a new agent is: where it goes, what it runs and what it is told. */
export interface SpawnOptions {
    /** The agent's name: one segment, created in the current scope. Exactly one of name and path. */
    name?: string;
    /** The agent's path relative to the current scope; a leading "/" makes it absolute. */
    path?: string;
    /** The prompt. */
    prompt?: string;
    /** The provider (default: the config's defaults.agent). */
    agent?: string;
    /** The model (default: the provider's configured model). */
    model?: string;
    /** The reasoning effort (default: the provider's configured effort). */
    effort?: string;
    /** The working directory (absolute); absent: herdr's default. */
    cwd?: string;
    /** Kill the agent after this duration ("30m"); for ask also the wait's deadline. */
    timeout?: string;
    /**
     * Run the agent in a git worktree of the repository cwd is in: true for the default
     * branch (orcr/<path with / as ->), a string for that branch. Removed when the agent
     * ends (for ask, after its answer) unless keepWorktree.
     */
    worktree?: boolean | string;
    /** Keep the worktree when the agent ends (needs worktree). */
    keepWorktree?: boolean;
}
/** Options of orcr.agent.run. */
export interface RunOptions extends SpawnOptions {
    /** When to reap the agent: "auto" (default), "immediate" or "never". */
    gc?: "auto" | "immediate" | "never";
}
/** Options of orcr.agent.ls. */
export interface LsOptions {
    /** A pattern, path or uuid, resolved against the scope; absent: every agent. */
    pattern?: string;
    /** Only this provider. */
    agent?: string;
    /** Only this status. */
    status?: string;
    /** Only managed agents. */
    managed?: boolean;
    /** Only unmanaged agents. */
    unmanaged?: boolean;
    /** Include ended agents. */
    all?: boolean;
}
/** Options of orcr.scope. */
export interface ScopeOptions {
    /** When fn throws: kill `/<scope>/**` (force, errors ignored), then re-throw. */
    killOnThrow?: boolean;
}
/** Options of orcr.agent.prepareAttach. */
export interface AttachOptions {
    /** Take over input instead of observing (default false). */
    takeover?: boolean;
}
/** Options of an OrcrClient. */
export interface ClientOptions {
    /** Where ORCR_ID, ORCR_PATH, ORCR_BIN and the context come from (default process.env). */
    env?: Env;
    /** The binary auto-start runs (default $ORCR_BIN, else orcr on PATH). */
    bin?: string;
    /** Start a server when none answers (default true). */
    autoStart?: boolean;
    /**
     * Told each time a blocking call (a wait, an ask, followLogs) lost its server and goes
     * on with the next one (docs/protocol.md §1.10).
     */
    onResume?: (method: string) => void;
    /**
     * The fleet member every call goes to, through this server's fleet.call
     * (docs/fleet.md §4.6): the member's results and errors, as its fleet.allow lets
     * them; watch reads its events from the fleet's stream. Unset: this server. See
     * OrcrClient.onHost.
     */
    host?: string;
}
/** orcr.agent. */
export interface AgentApi {
    /**
     * run enqueues an agent (agent.run `{path, prompt, agent?, model?, effort?, cwd?,
     * timeout?, gc?, worktree?, worktree_branch?, keep_worktree?}`, the path absolute from
     * name/path and the scope) and returns its handle.
     */
    run(opts: RunOptions): Promise<AgentHandle>;
    /**
     * wait blocks until every matching agent settles, or with `any` until the first one does
     * (agent.wait `{targets, timeout?, any?}`); no pattern waits on the whole scope
     * (`/<scope>/**`). The raw result; a timeout is `timed_out: true`, not an error.
     */
    wait(pattern?: string | string[], opts?: AgentWaitOptions): Promise<WaitResult>;
    /** ls lists agents (agent.ls `{pattern?, agent?, status?, managed?, unmanaged?, all?}`): the rows. */
    ls(opts?: LsOptions): Promise<AgentRow[]>;
    /** kill kills the matching agents (agent.kill `{targets, force}`); no pattern kills the whole scope. */
    kill(pattern?: string | string[], opts?: KillOptions): Promise<KillResult>;
    /** prepareAttach takes an attach lease (agent.attach.prepare `{target, takeover, client_pid}`). */
    prepareAttach(target: string, opts?: AttachOptions): Promise<AttachHandle>;
}
/** orcr.server. */
export interface ServerApi {
    /** status is server.status's result. */
    status(): Promise<G.ServerStatusResult>;
    /**
     * stop asks the server to stop (server.stop): `{status: "stopping"}`. It never starts
     * one: with no server answering it resolves to `{status: "not_running"}`.
     */
    stop(): Promise<G.ServerStopResult>;
    /** handshake is server.handshake's result (pid, protocol, store, ready). */
    handshake(): Promise<G.ServerHandshakeResult>;
}
/** orcr.api. */
export interface ApiApi {
    /** schema is the schema document (api.schema). */
    schema(): Promise<G.ApiSchemaResult>;
    /** snapshot is a consistent snapshot of agents, loops and queue (api.snapshot). */
    snapshot(): Promise<Snapshot>;
}
/** orcr.context. */
export interface ContextApi {
    /** fromEnv reads the context of env (default: the client's environment). */
    fromEnv(env?: Env): OrcrContext;
}
/**
 * OrcrClient is the SDK. `new OrcrClient()` talks to the server of ORCR_HOME (default
 * ~/.orcr) and starts one on its first helper call when none answers; `new
 * OrcrClient(new Transport(socket))` talks to that socket. Each request opens its own
 * connection. The helpers add the caller identity (ORCR_ID, ORCR_PATH) to every call that
 * touches agents or removes a loop, and send every path absolute, resolved against the
 * current scope (orcr.scope, else the context's). `gen` is the generated layer: one
 * method per socket method, raw, without lineage or auto-start.
 */
export declare class OrcrClient {
    #private;
    readonly transport: Transport;
    readonly gen: GeneratedClient;
    readonly agent: AgentApi;
    readonly loop: LoopApi;
    readonly server: ServerApi;
    readonly api: ApiApi;
    readonly context: ContextApi;
    constructor(transport?: Transport, opts?: ClientOptions);
    /**
     * ask runs a one-shot agent and returns its final response text: agent.run with gc
     * immediate and the params of ask, then agent.ask `{resume: uuid, timeout?}` (wait, read
     * the response, all on the server), which rides over a server restart on that same
     * agent and never starts a second one (docs/protocol.md §1.10). A timeout that does not
     * parse goes to agent.ask as it is, for the server's refusal. A response without text is
     * TranscriptUnavailable {path}.
     */
    ask(opts: SpawnOptions): Promise<string>;
    /**
     * scope runs fn with relative names and paths landing under path: `{rand}` expanded,
     * nested under the current scope (a leading "/" starts from the root), validated. fn
     * gets the composed scope. The frame is an AsyncLocalStorage one, so concurrent scopes
     * never see each other's. With killOnThrow, a throw from fn first kills `/<scope>/**`
     * (agent.kill, force, errors ignored), then propagates.
     */
    scope<T>(path: string, fn: (scope: string) => T | Promise<T>, opts?: ScopeOptions): Promise<T>;
    /** currentScope is where relative paths land now ("" at the root). */
    currentScope(): string;
    /**
     * onHost is a client of the fleet member host (docs/fleet.md §4.6): every call goes
     * through this server's fleet.call and answers with the member's result, or its error
     * (fleet_not_allowed outside its fleet.allow, fleet_unreachable when it does not
     * answer). Its paths are the member's, in the current scope; no caller identity goes
     * along; watch reads the member's snapshot over fleet.call and its events from the
     * fleet's stream (fleet.events). The fleet.* methods stay local.
     */
    onHost(host: string): OrcrClient;
    /** host is the fleet member this client's calls go to (undefined: this server). */
    get host(): string | undefined;
    /**
     * watch opens watch.open: the Watch's snapshot and the events after it, none missed. The
     * options are sent (`pattern` absolute) and, since the server reads none, applied
     * client-side (see WatchFilter).
     */
    watch(opts?: WatchOptions): Promise<Watch>;
    /** loopNameFrom is the first segment of a path: the loop of a run path. */
    loopNameFrom(path: string): string;
    /** ensureRunning makes sure a server answers (auto-start), once per client. */
    ensureRunning(): Promise<void>;
}
/** orcr is the default client: ORCR_HOME's server, process.env's context. */
export declare const orcr: OrcrClient;
