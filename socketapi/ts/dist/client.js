// OrcrClient: the hand-written helpers over the socket (orcr.agent, orcr.ask, orcr.scope,
// orcr.watch, orcr.loop, orcr.server, orcr.api, orcr.context) and the generated layer
// (orcr.gen). Everything the CLI can do, a client can do; no helper ever prompts.
import { AttachHandle } from "./attach.js";
import { fromEnv, loopNameFrom } from "./context.js";
import { Core, durationMs, remainingTimeout } from "./core.js";
import { OrcrError, TranscriptUnavailable } from "./errors.js";
import { GeneratedClient } from "./generated.js";
import { AgentHandle } from "./handle.js";
import { loopApi } from "./loops.js";
import { resolveCreate, resolveSelector } from "./path.js";
import { composeScope, runInScope } from "./scope.js";
import { Watch, WatchFilter } from "./watch.js";
import { Transport } from "./wire.js";
function put(target, key, value) {
    if (value !== undefined)
        target[key] = value;
}
/**
 * timeoutAfter is `{timeout}` with what is left of timeout elapsedMs in (undefined: the
 * first attempt, timeout as given), or nothing.
 */
function timeoutAfter(timeout, elapsedMs) {
    const left = elapsedMs === undefined ? timeout : remainingTimeout(timeout, elapsedMs);
    return left === undefined ? {} : { timeout: left };
}
function spawnParams(core, opts) {
    const params = { path: resolveCreate({ name: opts.name, path: opts.path }, core.scope()) };
    put(params, "prompt", opts.prompt);
    put(params, "agent", opts.agent);
    put(params, "model", opts.model);
    put(params, "effort", opts.effort);
    put(params, "cwd", opts.cwd);
    put(params, "timeout", opts.timeout);
    if (opts.worktree !== undefined && opts.worktree !== false)
        params.worktree = true;
    if (typeof opts.worktree === "string")
        params.worktree_branch = opts.worktree;
    if (opts.keepWorktree)
        params.keep_worktree = true;
    return core.withCaller(params);
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
export class OrcrClient {
    transport;
    gen;
    agent;
    loop;
    server;
    api;
    context;
    #core;
    #opts;
    constructor(transport = new Transport(), opts = {}) {
        const env = opts.env ?? process.env;
        const core = new Core(transport, env, opts.bin, opts.autoStart ?? true, opts.host);
        this.#opts = opts;
        core.onResume = opts.onResume;
        this.#core = core;
        this.transport = transport;
        this.gen = new GeneratedClient(transport);
        this.agent = {
            async run(o) {
                const params = spawnParams(core, o);
                put(params, "gc", o.gc);
                const res = (await core.call("agent.run", params));
                if (!res?.agent)
                    throw new OrcrError("server_error", "agent.run answered without an agent");
                return new AgentHandle(core, res.agent);
            },
            async wait(pattern, o = {}) {
                const params = { targets: core.targets(pattern) };
                put(params, "timeout", o.timeout);
                if (o.any)
                    params.any = true;
                return (await core.blocking("agent.wait", (elapsed) => core.withCaller({ ...params, ...timeoutAfter(o.timeout, elapsed) })));
            },
            async ls(o = {}) {
                const params = {};
                if (o.pattern !== undefined && o.pattern !== "")
                    params.pattern = resolveSelector(o.pattern, core.scope());
                put(params, "agent", o.agent);
                put(params, "status", o.status);
                if (o.managed)
                    params.managed = true;
                if (o.unmanaged)
                    params.unmanaged = true;
                if (o.all)
                    params.all = true;
                const res = (await core.call("agent.ls", core.withCaller(params)));
                return res?.agents ?? [];
            },
            async kill(pattern, o = {}) {
                const params = { targets: core.targets(pattern), force: o.force ?? false };
                return (await core.call("agent.kill", core.withCaller(params)));
            },
            async prepareAttach(target, o = {}) {
                const params = { target: resolveSelector(target, core.scope()), takeover: o.takeover ?? false, client_pid: process.pid };
                const res = (await core.call("agent.attach.prepare", core.withCaller(params)));
                return new AttachHandle(core, res ?? {});
            },
        };
        this.loop = loopApi(core);
        this.server = {
            async status() {
                return (await core.call("server.status", {}));
            },
            async stop() {
                try {
                    await core.handshake();
                }
                catch (e) {
                    if (e instanceof OrcrError && e.causeCode === "server_unreachable")
                        return { status: "not_running" };
                    throw e;
                }
                return (await transport.request("server.stop", {}));
            },
            async handshake() {
                await core.ensureRunning();
                return (await core.handshake());
            },
        };
        this.api = {
            async schema() {
                return (await core.call("api.schema", {}));
            },
            async snapshot() {
                return (await core.call("api.snapshot", {}));
            },
        };
        this.context = {
            fromEnv: (e) => fromEnv(e ?? env),
        };
    }
    /**
     * ask runs a one-shot agent and returns its final response text: agent.run with gc
     * immediate and the params of ask, then agent.ask `{resume: uuid, timeout?}` (wait, read
     * the response, all on the server), which rides over a server restart on that same
     * agent and never starts a second one (docs/protocol.md §1.10). A timeout that does not
     * parse goes to agent.ask as it is, for the server's refusal. A response without text is
     * TranscriptUnavailable {path}.
     */
    async ask(opts) {
        const core = this.#core;
        const params = spawnParams(core, opts);
        let res;
        if (opts.timeout !== undefined && opts.timeout !== "" && durationMs(opts.timeout) === undefined) {
            res = (await core.call("agent.ask", params));
        }
        else {
            const start = Date.now();
            const run = (await core.call("agent.run", { ...params, gc: "immediate" }));
            if (!run?.agent)
                throw new OrcrError("server_error", "agent.run answered without an agent");
            const uuid = run.agent.uuid;
            res = (await core.blocking("agent.ask", (elapsed) => core.withCaller({ resume: uuid, ...timeoutAfter(opts.timeout, elapsed === undefined ? undefined : Date.now() - start) })));
        }
        const text = res?.response?.text;
        if (typeof text !== "string") {
            const path = String(res?.path ?? params.path);
            throw new TranscriptUnavailable("transcript_unavailable", `agent ${path} gave no final response`, { path });
        }
        return text;
    }
    /**
     * scope runs fn with relative names and paths landing under path: `{rand}` expanded,
     * nested under the current scope (a leading "/" starts from the root), validated. fn
     * gets the composed scope. The frame is an AsyncLocalStorage one, so concurrent scopes
     * never see each other's. With killOnThrow, a throw from fn first kills `/<scope>/**`
     * (agent.kill, force, errors ignored), then propagates.
     */
    async scope(path, fn, opts = {}) {
        const core = this.#core;
        const composed = composeScope(core.scope(), path);
        return runInScope(composed, async () => {
            try {
                return await fn(composed);
            }
            catch (err) {
                if (opts.killOnThrow) {
                    try {
                        await core.call("agent.kill", core.withCaller({ targets: [`/${composed}/**`], force: true }));
                    }
                    catch {
                        // best effort: the original error is what the caller needs
                    }
                }
                throw err;
            }
        });
    }
    /** currentScope is where relative paths land now ("" at the root). */
    currentScope() {
        return this.#core.scope();
    }
    /**
     * onHost is a client of the fleet member host (docs/fleet.md §4.6): every call goes
     * through this server's fleet.call and answers with the member's result, or its error
     * (fleet_not_allowed outside its fleet.allow, fleet_unreachable when it does not
     * answer). Its paths are the member's, in the current scope; no caller identity goes
     * along; watch reads the member's snapshot over fleet.call and its events from the
     * fleet's stream (fleet.events). The fleet.* methods stay local.
     */
    onHost(host) {
        return new OrcrClient(this.transport, { ...this.#opts, host });
    }
    /** host is the fleet member this client's calls go to (undefined: this server). */
    get host() {
        return this.#core.host;
    }
    /**
     * watch opens watch.open: the Watch's snapshot and the events after it, none missed. The
     * options are sent (`pattern` absolute) and, since the server reads none, applied
     * client-side (see WatchFilter).
     */
    async watch(opts = {}) {
        const core = this.#core;
        const params = {};
        const pattern = opts.pattern !== undefined && opts.pattern !== "" ? resolveSelector(opts.pattern, core.scope()) : undefined;
        put(params, "pattern", pattern);
        put(params, "agent", opts.agent);
        put(params, "status", opts.status);
        put(params, "managed", opts.managed);
        put(params, "since_seq", opts.sinceSeq);
        const sub = await core.stream("watch.open", params);
        const filter = new WatchFilter(opts, pattern);
        return new Watch(sub, filter.active ? filter : null);
    }
    /** loopNameFrom is the first segment of a path: the loop of a run path. */
    loopNameFrom(path) {
        return loopNameFrom(path);
    }
    /** ensureRunning makes sure a server answers (auto-start), once per client. */
    ensureRunning() {
        return this.#core.ensureRunning();
    }
}
/** orcr is the default client: ORCR_HOME's server, process.env's context. */
export const orcr = new OrcrClient();
