import { type Env, type RequestOptions, type Subscription, type Transport } from "./wire.js";
/** How long auto-start waits for a spawned server, and how often it asks. */
export declare const START_DEADLINE_MS = 15000;
export declare const START_POLL_MS = 100;
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
    constructor(transport: Transport, env: Env, bin: string | undefined, autoStart: boolean);
    /** The binary auto-start runs: the bin option, else $ORCR_BIN, else orcr on PATH. */
    get bin(): string;
    /**
     * call makes sure a server runs, then sends one request. When the connect fails (the
     * server went away since it was last seen, so the request was never sent), a server is
     * started again and the request sent once more.
     */
    call(method: string, params: object, opts?: RequestOptions): Promise<unknown>;
    /** stream makes sure a server runs, then opens a stream (started again as call is). */
    stream<T>(method: string, params: object): Promise<Subscription<T>>;
    /** withCaller adds caller_id / caller_path from ORCR_ID / ORCR_PATH when they are set. */
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
