// The transport: newline-delimited JSON over orcr's Unix socket (docs/protocol.md §1–§2),
// one connection per request, plus streams (events.subscribe, watch.open) that keep
// their connection and deliver event frames after the initial result.
import { randomUUID } from "node:crypto";
import { lstatSync } from "node:fs";
import { createConnection } from "node:net";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { environmentError, errorFromWire, invalidRequest } from "./errors.js";
/** The socket protocol this SDK speaks. */
export const ORCR_PROTOCOL = 1;
/** The largest frame either side accepts, not counting its newline (16 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** How long an ordinary request may take before it fails `client_timeout`. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Methods whose deadline the server owns (socketapi/api/table.go marks them Unbounded):
 * the SDK applies no client timeout to them. agent.wait and agent.ask block until their
 * targets settle or their own `timeout` param passes; loop.rm and loop.run.stop wait for
 * the runs they stop; fleet.call bounds a call by its method (docs/fleet.md §4.6).
 */
export const UNBOUNDED_METHODS = Object.freeze(["agent.wait", "agent.ask", "loop.rm", "loop.run.stop", "provider.check", "fleet.call", "fleet.events"]);
/**
 * orcrHome is the home the SDK talks to: `ORCR_HOME` when it is set and not empty (made
 * absolute), else `$HOME/.orcr` (docs/protocol.md §1.1).
 */
export function orcrHome(env = process.env) {
    const h = env.ORCR_HOME;
    if (h)
        return resolve(h);
    const home = env === process.env ? env.HOME || homedir() : env.HOME;
    if (!home)
        throw environmentError("no_home_dir", "neither ORCR_HOME nor HOME is set");
    return join(home, ".orcr");
}
/** socketPath is `<orcrHome()>/orcr.sock`. */
export function socketPath(env = process.env) {
    return join(orcrHome(env), "orcr.sock");
}
/**
 * Transport sends requests to one orcr socket: `new Transport()` follows `ORCR_HOME` at each
 * request, `new Transport(path)` uses that socket. Every request opens its own connection,
 * writes one frame `{"protocol":1,"id":"<uuid>","method":…,"params":{…}}`, reads one
 * response and closes. It never starts a server (OrcrClient does).
 */
export class Transport {
    timeoutMs;
    #path;
    constructor(sockPath, opts = {}) {
        this.#path = sockPath ? resolve(sockPath) : undefined;
        this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    }
    /** The socket this transport connects to. */
    get socketPath() {
        return this.#path ?? socketPath();
    }
    /** The home of the socket (its directory). */
    get home() {
        return dirname(this.socketPath);
    }
    /**
     * request sends one request and resolves to its result (null when the response has
     * none); a refusal rejects with the error's class (errorFromWire), a transport failure
     * with EnvironmentError. Event frames are skipped.
     */
    request(method, params = {}, opts = {}) {
        return new Promise((resolveResult, reject) => {
            const ex = new Exchange(this, method, params, this.#timeout(method, opts), reject);
            ex.onMessage = (msg) => {
                if (isEventFrame(msg))
                    return;
                ex.finish();
                if (msg.ok === true)
                    resolveResult(msg.result ?? null);
                else
                    reject(errorFromWire(msg.error));
            };
            ex.start();
        });
    }
    /**
     * openStream sends a streaming request (watch.open, events.subscribe) and resolves,
     * once the initial result has come, to a Subscription holding it; the event frames that
     * follow are its async iteration. Only the initial result is bounded by the timeout.
     */
    openStream(method, params = {}, opts = {}) {
        return new Promise((resolveSub, reject) => {
            const ex = new Exchange(this, method, params, this.#timeout(method, opts), reject);
            ex.onMessage = (msg) => {
                if (isEventFrame(msg))
                    return; // no frame precedes the initial result (§2.6)
                if (msg.ok !== true) {
                    ex.finish();
                    reject(errorFromWire(msg.error));
                    return;
                }
                ex.clearTimer();
                resolveSub(new Subscription((msg.result ?? null), ex));
            };
            ex.start();
        });
    }
    #timeout(method, opts) {
        if (opts.timeoutMs !== undefined)
            return opts.timeoutMs;
        return UNBOUNDED_METHODS.includes(method) ? null : this.timeoutMs;
    }
}
function isEventFrame(msg) {
    return "subscription" in msg && !("ok" in msg);
}
/** encodeFrame is the request line of one call; a frame over the limit is refused before sending. */
export function encodeFrame(method, params) {
    const frame = Buffer.from(JSON.stringify({ protocol: ORCR_PROTOCOL, id: randomUUID(), method, params }), "utf8");
    if (frame.length > MAX_FRAME_BYTES) {
        throw invalidRequest("frame_too_large", `the ${method} request is ${frame.length} bytes; a frame may be at most ${MAX_FRAME_BYTES}`, {
            limit_bytes: MAX_FRAME_BYTES,
            frame_bytes: frame.length,
        });
    }
    return Buffer.concat([frame, Buffer.from("\n")]);
}
/**
 * FrameSplitter cuts a byte stream into lines: push hands every complete line that is not
 * blank (ASCII whitespace only) to onLine, and throws frame_too_large as soon as a line
 * grows past the limit, whether or not its newline has come.
 */
export class FrameSplitter {
    #parts = [];
    #pending = 0;
    limit;
    constructor(limit = MAX_FRAME_BYTES) {
        this.limit = limit;
    }
    /** The bytes of the line not yet ended. */
    get buffered() {
        return this.#pending;
    }
    push(chunk, onLine) {
        let start = 0;
        for (;;) {
            const nl = chunk.indexOf(0x0a, start);
            const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
            const size = this.#pending + piece.length;
            if (size > this.limit)
                throw frameTooLarge(size, this.limit);
            if (nl < 0) {
                if (piece.length > 0) {
                    this.#parts.push(piece);
                    this.#pending = size;
                }
                return;
            }
            const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece], size);
            this.#parts = [];
            this.#pending = 0;
            if (!isBlank(line))
                onLine(line);
            start = nl + 1;
        }
    }
}
function isBlank(line) {
    for (const b of line) {
        if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0b && b !== 0x0c)
            return false;
    }
    return true;
}
function frameTooLarge(size, limit) {
    return environmentError("frame_too_large", `a frame from the orcr server exceeds ${limit} bytes`, { limit_bytes: limit, frame_bytes: size });
}
/** parseFrame decodes one line; anything but a JSON object is EnvironmentError bad_frame. */
export function parseFrame(line) {
    let v;
    try {
        v = JSON.parse(line.toString("utf8"));
    }
    catch (e) {
        throw environmentError("bad_frame", `the orcr server sent a line that is not JSON: ${e.message}`);
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw environmentError("bad_frame", "the orcr server sent a frame that is not a JSON object");
    }
    return v;
}
/**
 * Exchange is one connection: it connects, writes the request, splits and decodes what
 * comes back and hands each message to onMessage. Any failure before finish() goes to
 * fail, once; after the stream took over (a Subscription), failures go to onFailure.
 */
class Exchange {
    transport;
    method;
    params;
    timeoutMs;
    fail;
    onMessage = () => { };
    onFailure = null;
    #conn = null;
    #timer;
    #done = false;
    #splitter = new FrameSplitter();
    constructor(transport, method, params, timeoutMs, fail) {
        this.transport = transport;
        this.method = method;
        this.params = params;
        this.timeoutMs = timeoutMs;
        this.fail = fail;
    }
    get conn() {
        return this.#conn;
    }
    start() {
        let frame;
        let path;
        try {
            frame = encodeFrame(this.method, this.params);
            path = this.transport.socketPath;
            refuseSymlink(path);
        }
        catch (e) {
            this.#die(e);
            return;
        }
        if (this.timeoutMs !== null) {
            this.#timer = setTimeout(() => {
                this.#die(environmentError("client_timeout", `no reply to ${this.method} from the orcr server within ${this.timeoutMs} ms`, {
                    method: this.method,
                    timeout_ms: this.timeoutMs,
                }));
            }, this.timeoutMs);
        }
        const conn = createConnection({ path });
        this.#conn = conn;
        conn.on("connect", () => conn.write(frame));
        conn.on("data", (chunk) => {
            try {
                this.#splitter.push(chunk, (line) => {
                    if (!this.#done || this.onFailure)
                        this.onMessage(parseFrame(line));
                });
            }
            catch (e) {
                this.#die(e);
            }
        });
        conn.on("error", (err) => this.#die(connectionError(path, err)));
        conn.on("close", () => {
            this.#die(environmentError("server_unreachable", `the connection to the orcr server at ${path} ended before its reply`));
        });
    }
    clearTimer() {
        clearTimeout(this.#timer);
        this.#timer = undefined;
    }
    /** finish ends the exchange after its answer: the connection is closed. */
    finish() {
        this.#done = true;
        this.clearTimer();
        this.#conn?.destroy();
    }
    /** close is a Subscription's end: the socket goes, nothing more is reported. */
    close() {
        const notify = this.onFailure;
        this.onFailure = null;
        this.finish();
        notify?.(null);
    }
    #die(err) {
        if (this.onFailure) {
            // A stream: EOF ends it cleanly, anything else is its final error.
            const notify = this.onFailure;
            this.onFailure = null;
            this.finish();
            notify(err.code === "environment_error" && err.causeCode === "server_unreachable" ? null : err);
            return;
        }
        if (this.#done)
            return;
        this.finish();
        this.fail(err);
    }
}
function refuseSymlink(path) {
    let link = false;
    try {
        link = lstatSync(path).isSymbolicLink();
    }
    catch {
        return; // missing: the connect reports server_unreachable
    }
    if (link)
        throw environmentError("unsafe_home", `refusing to connect: ${path} is a symlink`, { path });
}
function connectionError(path, err) {
    const code = err.code ?? "";
    const msg = code === "ENOENT" || code === "ECONNREFUSED" || code === "ENOTSOCK"
        ? `cannot connect to the orcr server at ${path}: ${code}`
        : `the connection to the orcr server at ${path} failed: ${err.message}`;
    return environmentError("server_unreachable", msg, code ? { path, errno: code } : { path });
}
/** How many frames a Subscription holds before it stops reading the socket. */
const HIGH_WATER = 1024;
/**
 * Subscription is an open stream: `initial` is its first result (watch.open's snapshot,
 * events.subscribe's cursor), and iterating it yields the event frames that follow until
 * the server closes the stream. close() drops the socket; leaving a `for await` loop
 * early closes it too. A broken frame ends the iteration with its error.
 */
export class Subscription {
    initial;
    #ex;
    #queue = [];
    #waiters = [];
    #ended = false;
    #error = null;
    #paused = false;
    /** @internal — streams are opened with Transport.openStream. */
    constructor(initial, ex) {
        this.initial = initial;
        this.#ex = ex;
        ex.onMessage = (msg) => {
            if (!isEventFrame(msg))
                return;
            this.#push(msg);
        };
        ex.onFailure = (err) => this.#end(err);
    }
    /** Whether the stream has ended (EOF, close() or an error). */
    get closed() {
        return this.#ended;
    }
    /** close drops the connection; a pending next() resolves done. */
    close() {
        this.#ex.close();
    }
    next() {
        const frame = this.#queue.shift();
        if (frame) {
            if (this.#paused && this.#queue.length < HIGH_WATER / 4) {
                this.#paused = false;
                this.#ex.conn?.resume();
            }
            return Promise.resolve({ done: false, value: frame });
        }
        if (this.#ended) {
            if (this.#error) {
                const err = this.#error;
                this.#error = null;
                return Promise.reject(err);
            }
            return Promise.resolve({ done: true, value: undefined });
        }
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
    }
    [Symbol.asyncIterator]() {
        return {
            next: () => this.next(),
            return: async () => {
                this.close();
                return { done: true, value: undefined };
            },
        };
    }
    #push(frame) {
        const w = this.#waiters.shift();
        if (w) {
            w.resolve({ done: false, value: frame });
            return;
        }
        this.#queue.push(frame);
        if (!this.#paused && this.#queue.length >= HIGH_WATER) {
            this.#paused = true;
            this.#ex.conn?.pause();
        }
    }
    #end(err) {
        if (this.#ended)
            return;
        this.#ended = true;
        this.#error = this.#queue.length === 0 && this.#waiters.length > 0 ? null : err;
        for (const w of this.#waiters.splice(0)) {
            if (err)
                w.reject(err);
            else
                w.resolve({ done: true, value: undefined });
        }
    }
}
