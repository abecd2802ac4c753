import { Subscription, type Env, type RequestOptions, type Transport } from "./wire.js";
/** How long auto-start waits for a spawned server, and how often it asks. */
export declare const START_DEADLINE_MS = 15000;
export declare const START_POLL_MS = 100;
/**
 * How long a blocking call waits for a server to answer again after the one it talked to
 * went away (docs/protocol.md §1.10).
 */
export declare const RESUME_WITHIN_MS = 30000;
/**
 * Core is what every helper of an OrcrClient shares: its transport, the environment it
 * reads ORCR_* from, and the memoized auto-start.
 * @internal
 */
export declare class Core {
    #private;
    readonly transport: Transport;
    readonly env: Env;
    readonly autoStart: boolean;
    /** Told each time a blocking call lost its server and goes on with the next one. */
    onResume: ((method: string) => void) | undefined;
    /** The fleet member every call goes to through fleet.call (undefined: this server). */
    readonly host: string | undefined;
    constructor(transport: Transport, env: Env, bin: string | undefined, autoStart: boolean, host?: string);
    /** The binary auto-start runs: the bin option, else $ORCR_BIN, else orcr on PATH. */
    get bin(): string;
    /**
     * call makes sure a server runs, then sends one request. When the connect fails (the
     * server went away since it was last seen, so the request was never sent), a server is
     * started again and the request sent once more.
     */
    call(method: string, params: object, opts?: RequestOptions): Promise<unknown>;
    /**
     * stream makes sure a server runs, then opens a stream (started again as call is). With
     * a host, events.subscribe and watch.open read the member's events from the fleet's
     * stream through this server (fleet.events, docs/fleet.md §4.6); any other stream holds
     * one server's connection and is refused (fleet_not_allowed).
     */
    stream<T>(method: string, params: object): Promise<Subscription<T>>;
    /**
     * blocking sends a blocking call (agent.wait, agent.ask with resume) that rides over a
     * server restart (docs/protocol.md §1.10): when the server goes away before the answer
     * (server_unreachable), a server is got back — started again with autoStart, else
     * waited for — for up to RESUME_WITHIN_MS, and the request params(elapsedMs) makes is
     * sent again, as often as that happens (elapsedMs since the first attempt, which gets
     * undefined). onResume, when set, is told each time.
     */
    blocking(method: string, params: (elapsedMs: number | undefined) => object, opts?: RequestOptions): Promise<unknown>;
    /**
     * reconnect gets a server back after lost, an error of a call of method that says the
     * server went away: ensureRunning (a start with autoStart) until it succeeds or
     * RESUME_WITHIN_MS passes, which is EnvironmentError server_unreachable {method,
     * last_error}.
     */
    reconnect(method: string, lost: unknown): Promise<void>;
    /**
     * withCaller adds caller_id / caller_path from ORCR_ID / ORCR_PATH when they are set
     * (not with a host).
     */
    withCaller<P extends object>(params: P): P & {
        caller_id?: string;
        caller_path?: string;
    };
    /** scope is the innermost orcr.scope frame, else the context's scope ("" at root). */
    scope(): string;
    /**
     * targets resolves the selectors of a collection call (wait, kill) against the scope;
     * none means the whole scope (`/<scope>/**`), and at root is InvalidRequest no_scope.
     */
    targets(pattern: string | readonly string[] | undefined): string[];
    /** handshake asks server.handshake once and checks the protocol. */
    handshake(timeoutMs?: number | null): Promise<Record<string, unknown>>;
    /**
     * ensureRunning makes sure a server answers, once per Core: a handshake, else (with
     * autoStart) `<bin> server start --foreground` spawned detached with ORCR_HOME set to the
     * transport's home, then a handshake every 100 ms for up to 15 s. A failed start is not
     * memoized: the next call tries again.
     */
    ensureRunning(): Promise<void>;
}
/** serverGone: the server went away — nobody answers, or the connection broke before the answer. */
export declare function serverGone(e: unknown): boolean;
/** durationMs reads orcr's duration grammar ("30s", "500ms", "2h"); undefined when it does not parse. */
export declare function durationMs(d: string): number | undefined;
/**
 * remainingTimeout is what is left of a duration timeout ("30s") elapsedMs after it
 * started, in the same grammar ("29500ms", at least "1ms"); absent stays absent, and one
 * that does not parse is sent as it is (the server refused it the first time).
 */
export declare function remainingTimeout(timeout: string | undefined, elapsedMs: number): string | undefined;
