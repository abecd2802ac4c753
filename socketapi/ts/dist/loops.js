// orcr.loop: durable loops of a command (docs/loops.md, docs/protocol.md §5.18–§5.26).
import { join } from "node:path";
function put(target, key, value) {
    if (value !== undefined)
        target[key] = value;
}
/** loopApi builds orcr.loop on a client's core. @internal */
export function loopApi(core) {
    const run = {
        async start(name) {
            const res = (await core.call("loop.run.start", { name }));
            const r = res?.run ?? {};
            const runId = String(r.run_id ?? "");
            return { ...r, runId, dataDir: join(core.transport.home, "data", name, runId) };
        },
        async stop(name, opts = {}) {
            const params = { name };
            put(params, "run", opts.runId);
            return (await core.call("loop.run.stop", params));
        },
        async ls(name, opts = {}) {
            const params = { name, all: opts.all ?? false };
            put(params, "status", opts.status);
            const res = (await core.call("loop.run.ls", params));
            return res?.runs ?? [];
        },
    };
    return {
        async create(opts) {
            const params = { name: opts.name, command: [...opts.command], cwd: opts.cwd ?? process.cwd() };
            put(params, "cron", opts.cron);
            put(params, "once_at", opts.onceAt);
            put(params, "max_concurrency", opts.maxConcurrency);
            put(params, "overlap", opts.overlap);
            put(params, "timeout", opts.timeout);
            const res = (await core.call("loop.create", params));
            return (res?.loop ?? {});
        },
        async pause(name) {
            return (await core.call("loop.pause", { names: [name] }));
        },
        async resume(name) {
            return (await core.call("loop.resume", { names: [name] }));
        },
        async rm(name, opts = {}) {
            return (await core.call("loop.rm", core.withCaller({ names: [name], kill_active: opts.killActive ?? false })));
        },
        async ls(opts = {}) {
            const params = {};
            put(params, "all", opts.all);
            put(params, "status", opts.status);
            put(params, "names", opts.names);
            const res = (await core.call("loop.ls", params));
            return res?.loops ?? [];
        },
        async logs(name, opts = {}) {
            const params = { name };
            put(params, "run", opts.run);
            put(params, "source", opts.source);
            put(params, "tail", opts.tail);
            const res = (await core.call("loop.logs", params));
            return res?.lines ?? [];
        },
        run,
    };
}
