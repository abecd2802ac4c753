import { type Socket } from "node:net";
import { type OrcrError } from "./errors.js";
/** The socket protocol this SDK speaks. */
export declare const ORCR_PROTOCOL = 1;
/** The largest frame either side accepts, not counting its newline (16 MiB). */
export declare const MAX_FRAME_BYTES: number;
/** How long an ordinary request may take before it fails `client_timeout`. */
export declare const DEFAULT_TIMEOUT_MS = 30000;
/**
 * Methods whose deadline the server owns (socketapi/api/table.go marks them Unbounded):
 * the SDK applies no client timeout to them. agent.wait and agent.ask block until their
 * targets settle or their own `timeout` param passes; loop.rm and loop.run.stop wait for
 * the runs they stop; fleet.call bounds a call by its method (docs/fleet.md §4.6).
 */
export declare const UNBOUNDED_METHODS: readonly string[];
/** An environment to read ORCR_* variables from (process.env by default). */
export type Env = Readonly<Record<string, string | undefined>>;
/**
 * orcrHome is the home the SDK talks to: `ORCR_HOME` when it is set and not empty (made
 * absolute), else `$HOME/.orcr` (docs/protocol.md §1.1).
 */
export declare function orcrHome(env?: Env): string;
/** socketPath is `<orcrHome()>/orcr.sock`. */
export declare function socketPath(env?: Env): string;
/** The event object of a stream frame: `kind`, `ref_uuid` when the event has one, and its payload. */
export interface StreamEvent {
    kind: string;
    ref_uuid?: string;
    [key: string]: unknown;
}
/** One event frame of a stream (docs/protocol.md §2.4); `seq` is 0 for control frames. */
export interface StreamFrame {
    subscription: number;
    seq: number;
    event: StreamEvent;
    [key: string]: unknown;
}
/** Options of one request. */
export interface RequestOptions {
    /**
     * The client timeout in ms; null for none. Default: none for the methods of
     * UNBOUNDED_METHODS, else the transport's timeout.
     */
    timeoutMs?: number | null;
}
/** Options of a Transport. */
export interface TransportOptions {
    /** The timeout of ordinary requests in ms (default 30 000). */
    timeoutMs?: number;
}
/** What the generated layer needs of a transport. */
export interface MethodTransport {
    request(method: string, params?: object, opts?: RequestOptions): Promise<unknown>;
    openStream(method: string, params?: object, opts?: RequestOptions): Promise<Subscription>;
}
/**
 * Transport sends requests to one orcr socket: `new Transport()` follows `ORCR_HOME` at each
 * request, `new Transport(path)` uses that socket. Every request opens its own connection,
 * writes one frame `{"protocol":1,"id":"<uuid>","method":…,"params":{…}}`, reads one
 * response and closes. It never starts a server (OrcrClient does).
 */
export declare class Transport implements MethodTransport {
    #private;
    readonly timeoutMs: number;
    constructor(sockPath?: string, opts?: TransportOptions);
    /** The socket this transport connects to. */
    get socketPath(): string;
    /** The home of the socket (its directory). */
    get home(): string;
    /**
     * request sends one request and resolves to its result (null when the response has
     * none); a refusal rejects with the error's class (errorFromWire), a transport failure
     * with EnvironmentError. Event frames are skipped.
     */
    request(method: string, params?: object, opts?: RequestOptions): Promise<unknown>;
    /**
     * openStream sends a streaming request (watch.open, events.subscribe) and resolves,
     * once the initial result has come, to a Subscription holding it; the event frames that
     * follow are its async iteration. Only the initial result is bounded by the timeout.
     */
    openStream<Initial = unknown>(method: string, params?: object, opts?: RequestOptions): Promise<Subscription<Initial>>;
}
/** A decoded frame: any JSON object. */
type Message = Record<string, unknown>;
/** encodeFrame is the request line of one call; a frame over the limit is refused before sending. */
export declare function encodeFrame(method: string, params: object): Buffer;
/**
 * FrameSplitter cuts a byte stream into lines: push hands every complete line that is not
 * blank (ASCII whitespace only) to onLine, and throws frame_too_large as soon as a line
 * grows past the limit, whether or not its newline has come.
 */
export declare class FrameSplitter {
    #private;
    readonly limit: number;
    constructor(limit?: number);
    /** The bytes of the line not yet ended. */
    get buffered(): number;
    push(chunk: Buffer, onLine: (line: Buffer) => void): void;
}
/** parseFrame decodes one line; anything but a JSON object is EnvironmentError bad_frame. */
export declare function parseFrame(line: Buffer): Message;
/** The connection of a stream, as a Subscription sees it. */
export interface StreamConnection {
    onMessage: (msg: Record<string, unknown>) => void;
    onFailure: ((err: OrcrError | null) => void) | null;
    readonly conn: Socket | null;
    close(): void;
}
/**
 * Subscription is an open stream: `initial` is its first result (watch.open's snapshot,
 * events.subscribe's cursor), and iterating it yields the event frames that follow until
 * the server closes the stream. close() drops the socket; leaving a `for await` loop
 * early closes it too. A broken frame ends the iteration with its error.
 */
export declare class Subscription<Initial = unknown> implements AsyncIterable<StreamFrame> {
    #private;
    readonly initial: Initial;
    /** @internal — streams are opened with Transport.openStream. */
    constructor(initial: Initial, ex: StreamConnection);
    /** Whether the stream has ended (EOF, close() or an error). */
    get closed(): boolean;
    /** close drops the connection; a pending next() resolves done. */
    close(): void;
    next(): Promise<IteratorResult<StreamFrame>>;
    [Symbol.asyncIterator](): AsyncIterator<StreamFrame>;
}
export {};
