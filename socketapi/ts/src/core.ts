// The machinery under the helpers: auto-start (docs/protocol.md §1.7), the caller identity
// every agent verb carries (§4.1), and the scope paths are resolved in.

import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

import { fromEnv } from "./context.js";
import { environmentError, errorFromWire, invalidRequest, OrcrError, type WireError } from "./errors.js";
import { resolveSelector } from "./path.js";
import { activeScope } from "./scope.js";
import { ORCR_PROTOCOL, Subscription, type Env, type RequestOptions, type StreamConnection, type Transport } from "./wire.js";

/** How long auto-start waits for a spawned server, and how often it asks. */
export const START_DEADLINE_MS = 15_000;
export const START_POLL_MS = 100;

/** The handshake of one poll may take this long. */
const HANDSHAKE_TIMEOUT_MS = 5_000;

/**
 * How long a blocking call waits for a server to answer again after the one it talked to
 * went away (docs/protocol.md §1.10).
 */
export const RESUME_WITHIN_MS = 30_000;

/**
 * Core is what every helper of an OrcrClient shares: its transport, the environment it
 * reads ORCR_* from, and the memoized auto-start.
 * @internal
 */
export class Core {
  readonly transport: Transport;
  readonly env: Env;
  readonly autoStart: boolean;
  /** Told each time a blocking call lost its server and goes on with the next one. */
  onResume: ((method: string) => void) | undefined;
  /** The fleet member every call goes to through fleet.call (undefined: this server). */
  readonly host: string | undefined;
  readonly #bin: string | undefined;
  #ready: Promise<void> | null = null;

  constructor(transport: Transport, env: Env, bin: string | undefined, autoStart: boolean, host?: string) {
    this.transport = transport;
    this.env = env;
    this.#bin = bin;
    this.autoStart = autoStart;
    this.host = host || undefined;
  }

  /**
   * send is one request of method: on this server, or with a host through fleet.call on
   * it (docs/fleet.md §4.6), answered with the member's own result. The fleet.* methods
   * stay local.
   */
  async #send(method: string, params: object, opts?: RequestOptions): Promise<unknown> {
    if (!this.host || method.startsWith("fleet.")) return this.transport.request(method, params, opts);
    const res = (await this.transport.request("fleet.call", { host: this.host, method, params }, opts)) as { result?: unknown } | null;
    return res?.result ?? null;
  }

  /** The binary auto-start runs: the bin option, else $ORCR_BIN, else orcr on PATH. */
  get bin(): string {
    return this.#bin ?? (this.env.ORCR_BIN || "orcr");
  }

  /**
   * call makes sure a server runs, then sends one request. When the connect fails (the
   * server went away since it was last seen, so the request was never sent), a server is
   * started again and the request sent once more.
   */
  call(method: string, params: object, opts?: RequestOptions): Promise<unknown> {
    return this.#again(() => this.#send(method, params, opts));
  }

  /**
   * stream makes sure a server runs, then opens a stream (started again as call is). With
   * a host, events.subscribe and watch.open read the member's events from the fleet's
   * stream through this server (fleet.events, docs/fleet.md §4.6); any other stream holds
   * one server's connection and is refused (fleet_not_allowed).
   */
  stream<T>(method: string, params: object): Promise<Subscription<T>> {
    if (this.host && (method === "events.subscribe" || method === "watch.open")) return this.#hostStream<T>(this.host, method, params);
    if (this.host) {
      return Promise.reject(
        invalidRequest("fleet_not_allowed", `\`${method}\` is a stream of one server; open it on ${this.host}'s own socket (a client of that home), not over the fleet`, {
          method,
          host: this.host,
          policy: "local",
        }),
      );
    }
    return this.#again(() => this.transport.openStream<T>(method, params));
  }

  /**
   * hostStream is events.subscribe or watch.open of member host: the first result as its
   * own socket would answer it (watch.open's snapshot read with api.snapshot over
   * fleet.call), then its events after that cursor, in its seq order with no gap.
   */
  async #hostStream<T>(host: string, method: string, params: object): Promise<Subscription<T>> {
    let cursor = 0;
    let initial: unknown;
    if (method === "events.subscribe") {
      const since = Number((params as { since_seq?: unknown }).since_seq ?? 0);
      cursor = Number.isFinite(since) && since > 0 ? Math.floor(since) : 0;
      initial = { subscription: 0, from_seq: cursor };
    } else {
      const snap = (await this.call("api.snapshot", {})) as { snapshot_seq: number };
      cursor = snap.snapshot_seq;
      initial = { subscription: 0, snapshot_seq: snap.snapshot_seq, snapshot: snap };
    }
    const feed = new FleetFeed(this, host, cursor);
    const sub = new Subscription<T>(initial as T, feed);
    feed.start();
    return sub;
  }

  async #again<T>(send: () => Promise<T>): Promise<T> {
    const ready = this.ensureRunning();
    await ready;
    try {
      return await send();
    } catch (e) {
      if (!this.autoStart || !notConnected(e)) throw e;
      if (this.#ready === ready) this.#ready = null;
      await this.ensureRunning();
      return send();
    }
  }

  /**
   * blocking sends a blocking call (agent.wait, agent.ask with resume) that rides over a
   * server restart (docs/protocol.md §1.10): when the server goes away before the answer
   * (server_unreachable), a server is got back — started again with autoStart, else
   * waited for — for up to RESUME_WITHIN_MS, and the request params(elapsedMs) makes is
   * sent again, as often as that happens (elapsedMs since the first attempt, which gets
   * undefined). onResume, when set, is told each time.
   */
  async blocking(method: string, params: (elapsedMs: number | undefined) => object, opts?: RequestOptions): Promise<unknown> {
    const start = Date.now();
    for (let attempt = 0; ; attempt++) {
      const ready = this.ensureRunning();
      await ready;
      try {
        return await this.#send(method, params(attempt === 0 ? undefined : Date.now() - start), opts);
      } catch (e) {
        if (!serverGone(e)) throw e;
        if (this.#ready === ready) this.#ready = null;
        await this.reconnect(method, e);
      }
    }
  }

  /**
   * reconnect gets a server back after lost, an error of a call of method that says the
   * server went away: ensureRunning (a start with autoStart) until it succeeds or
   * RESUME_WITHIN_MS passes, which is EnvironmentError server_unreachable {method,
   * last_error}.
   */
  async reconnect(method: string, lost: unknown): Promise<void> {
    const deadline = Date.now() + RESUME_WITHIN_MS;
    let last = lost;
    for (;;) {
      try {
        await this.ensureRunning();
        this.onResume?.(method);
        return;
      } catch (e) {
        if (isUnsupported(e)) throw e;
        last = e;
      }
      if (Date.now() >= deadline) {
        throw environmentError("server_unreachable", `the orcr server went away during ${method} and did not answer again within ${RESUME_WITHIN_MS / 1000} s`, {
          method,
          last_error: errorText(last),
        });
      }
      await sleep(START_POLL_MS);
    }
  }

  /**
   * withCaller adds caller_id / caller_path from ORCR_ID / ORCR_PATH when they are set
   * (not with a host).
   */
  withCaller<P extends object>(params: P): P & { caller_id?: string; caller_path?: string } {
    const out: P & { caller_id?: string; caller_path?: string } = { ...params };
    if (this.host) return out; // an agent of this host is nobody on another
    if (this.env.ORCR_ID && out.caller_id === undefined) out.caller_id = this.env.ORCR_ID;
    if (this.env.ORCR_PATH && out.caller_path === undefined) out.caller_path = this.env.ORCR_PATH;
    return out;
  }

  /** scope is the innermost orcr.scope frame, else the context's scope ("" at root). */
  scope(): string {
    return activeScope() ?? fromEnv(this.env).scope ?? "";
  }

  /**
   * targets resolves the selectors of a collection call (wait, kill) against the scope;
   * none means the whole scope (`/<scope>/**`), and at root is InvalidRequest no_scope.
   */
  targets(pattern: string | readonly string[] | undefined): string[] {
    const scope = this.scope();
    const given = pattern === undefined ? [] : typeof pattern === "string" ? [pattern] : [...pattern];
    if (given.length === 0) {
      if (scope === "") {
        throw invalidRequest("no_scope", 'no pattern given and no scope to default to; pass "**" to mean every agent');
      }
      return [`/${scope}/**`];
    }
    return given.map((p) => resolveSelector(p, scope));
  }

  /** handshake asks server.handshake once and checks the protocol. */
  async handshake(timeoutMs: number | null = HANDSHAKE_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const h = (await this.transport.request("server.handshake", {}, { timeoutMs })) as Record<string, unknown> | null;
    const protocol = h?.protocol;
    if (protocol !== ORCR_PROTOCOL) {
      throw environmentError("unsupported_version", `the orcr server speaks protocol ${String(protocol)}, this client speaks ${ORCR_PROTOCOL}`, {
        server_protocol: protocol ?? null,
        client_protocol: ORCR_PROTOCOL,
      });
    }
    return h!;
  }

  /**
   * ensureRunning makes sure a server answers, once per Core: a handshake, else (with
   * autoStart) `<bin> server start --foreground` spawned detached with ORCR_HOME set to the
   * transport's home, then a handshake every 100 ms for up to 15 s. A failed start is not
   * memoized: the next call tries again.
   */
  ensureRunning(): Promise<void> {
    if (!this.#ready) {
      const p = this.#start();
      this.#ready = p;
      p.catch(() => {
        if (this.#ready === p) this.#ready = null;
      });
    }
    return this.#ready;
  }

  async #start(): Promise<void> {
    let last: unknown;
    try {
      await this.handshake();
      return;
    } catch (e) {
      if (isUnsupported(e) || !this.autoStart) throw e;
      last = e;
    }
    const bin = this.bin;
    const child = spawn(bin, ["server", "start", "--foreground", "--start-report-fd=3"], {
      detached: true,
      stdio: ["ignore", "ignore", "ignore", "pipe"],
      env: { ...this.env, ORCR_HOME: this.transport.home },
    });
    let spawnError: Error | null = null;
    let ended: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let report = "";
    const reportPipe = child.stdio[3] as Readable | null;
    reportPipe?.setEncoding("utf8");
    reportPipe?.on("data", (d: string) => {
      if (report.length < 1 << 20) report += d;
    });
    reportPipe?.on("error", () => {});
    child.on("error", (e) => {
      spawnError = e;
    });
    child.on("close", (code, signal) => {
      ended = { code, signal };
    });
    child.unref();
    const deadline = Date.now() + START_DEADLINE_MS;
    try {
      for (;;) {
        if (spawnError) {
          throw environmentError("server_start_failed", `cannot run ${bin}: ${(spawnError as Error).message} (set ORCR_BIN to the orcr binary)`, {
            bin,
          });
        }
        try {
          await this.handshake(Math.max(500, Math.min(HANDSHAKE_TIMEOUT_MS, deadline - Date.now())));
          return;
        } catch (e) {
          if (isUnsupported(e)) throw e;
          last = e;
        }
        if (ended) {
          const failure = startFailure(report, ended);
          if (failure) {
            // One more look, in case another client's server answers after all.
            try {
              await this.handshake();
              return;
            } catch {
              throw failure;
            }
          }
          // A clean exit without a report: this server lost a start race; the winner will answer.
        }
        if (Date.now() >= deadline) {
          throw environmentError("server_start_failed", "the orcr server did not become ready in time", { last_error: errorText(last) });
        }
        await sleep(START_POLL_MS);
      }
    } finally {
      reportPipe?.destroy();
    }
  }
}

/** serverGone: the server went away — nobody answers, or the connection broke before the answer. */
export function serverGone(e: unknown): boolean {
  return e instanceof OrcrError && e.code === "environment_error" && e.causeCode === "server_unreachable";
}

/** durationMs reads orcr's duration grammar ("30s", "500ms", "2h"); undefined when it does not parse. */
export function durationMs(d: string): number | undefined {
  const m = /^\s*([0-9]+)(ms|s|m|h|d)\s*$/.exec(d);
  if (!m) return undefined;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms" | "s" | "m" | "h" | "d"];
  const total = Number(m[1]) * unit;
  return Number.isSafeInteger(total) && total > 0 ? total : undefined;
}

/**
 * remainingTimeout is what is left of a duration timeout ("30s") elapsedMs after it
 * started, in the same grammar ("29500ms", at least "1ms"); absent stays absent, and one
 * that does not parse is sent as it is (the server refused it the first time).
 */
export function remainingTimeout(timeout: string | undefined, elapsedMs: number): string | undefined {
  if (timeout === undefined || timeout === "") return timeout;
  const total = durationMs(timeout);
  if (total === undefined) return timeout;
  return `${Math.max(1, Math.floor(total - elapsedMs))}ms`;
}

/** notConnected: the connect itself failed (no socket, nobody listening), so nothing was sent. */
function notConnected(e: unknown): boolean {
  if (!(e instanceof OrcrError) || e.causeCode !== "server_unreachable") return false;
  const errno = e.details?.errno;
  return errno === "ENOENT" || errno === "ECONNREFUSED";
}

function isUnsupported(e: unknown): boolean {
  return e instanceof OrcrError && e.code === "environment_error" && e.causeCode === "unsupported_version";
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** startFailure reads what a spawned server that has exited left on its start report. */
function startFailure(report: string, ended: { code: number | null; signal: NodeJS.Signals | null }): OrcrError | null {
  const text = report.trim();
  if (text !== "") {
    try {
      const e = JSON.parse(text.split("\n")[0]) as WireError;
      if (e && typeof e.code === "string") return errorFromWire(e);
    } catch {
      // not JSON: report the text
    }
    return environmentError("server_start_failed", `the orcr server failed to start: ${text}`);
  }
  if (ended.code === 0) return null;
  const how = ended.signal ? `signal ${ended.signal}` : `exit status ${ended.code}`;
  return environmentError("server_start_failed", `the orcr server exited while starting (${how})`);
}

/** HOST_WAIT_MS is how long one fleet.events read of a host stream waits for an event. */
const HOST_WAIT_MS = 5000;

/**
 * FleetFeed is a host stream's source: fleet.events of the host alone, read after its
 * cursor, each event handed on as the member's own stream frame would be.
 */
class FleetFeed implements StreamConnection {
  onMessage: (msg: Record<string, unknown>) => void = () => {};
  onFailure: ((err: OrcrError | null) => void) | null = null;
  readonly conn = null;
  #closed = false;

  constructor(
    readonly core: Core,
    readonly host: string,
    public cursor: number,
  ) {}

  start(): void {
    void this.#loop();
  }

  async #loop(): Promise<void> {
    while (!this.#closed) {
      let page: { events?: { seq: number; event: unknown }[] };
      try {
        page = (await this.core.call("fleet.events", { since: { [this.host]: this.cursor }, hosts: [this.host], wait_ms: HOST_WAIT_MS })) as typeof page;
      } catch (e) {
        if (!this.#closed) {
          this.#closed = true;
          this.onFailure?.(e instanceof OrcrError ? e : null);
        }
        return;
      }
      for (const e of page.events ?? []) {
        if (this.#closed) return;
        this.cursor = e.seq;
        this.onMessage({ subscription: 0, seq: e.seq, event: e.event });
      }
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onFailure?.(null);
  }
}
