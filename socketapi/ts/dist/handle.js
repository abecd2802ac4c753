// AgentHandle: one agent, addressed by its uuid (which stays unambiguous when its path is
// reused later).
import { setTimeout as sleep } from "node:timers/promises";
import { remainingTimeout, serverGone } from "./core.js";
import { NotFound, TranscriptUnavailable } from "./errors.js";
import { nameOf } from "./path.js";
/** The default polling interval of followLogs. */
export const FOLLOW_INTERVAL_MS = 500;
/**
 * AgentHandle is one agent: `uuid`, `path`, `name` (its last segment), `dataDir` (its
 * ORCR_AGENT_DATA_DIR, which outlives the agent) and `row`, the row agent.run answered
 * with. Every call targets the uuid.
 */
export class AgentHandle {
    uuid;
    path;
    name;
    dataDir;
    row;
    #core;
    /** @internal — handles come from orcr.agent.run. */
    constructor(core, row) {
        this.#core = core;
        this.row = row;
        this.uuid = String(row.uuid ?? "");
        this.path = String(row.path ?? "");
        this.name = nameOf(this.path);
        this.dataDir = String(row.data_dir ?? "");
    }
    /** wait blocks until the agent settles (agent.wait `{targets: [uuid], timeout?}`); the raw result. */
    wait(opts = {}) {
        return this.#core.blocking("agent.wait", (elapsed) => {
            const params = { targets: [this.uuid] };
            const timeout = elapsed === undefined ? opts.timeout : remainingTimeout(opts.timeout, elapsed);
            if (timeout !== undefined)
                params.timeout = timeout;
            return this.#core.withCaller(params);
        });
    }
    /** send delivers a prompt (agent.send `{target: uuid, prompt}`); the raw result. */
    send(prompt) {
        return this.#core.call("agent.send", this.#core.withCaller({ target: this.uuid, prompt }));
    }
    /** logs reads the transcript (agent.logs `{target: uuid, last_response: false, tail?}`): its entries. */
    async logs(opts = {}) {
        const params = { target: this.uuid, last_response: false };
        if (opts.tail !== undefined)
            params.tail = opts.tail;
        const res = (await this.#core.call("agent.logs", this.#core.withCaller(params)));
        return res?.entries ?? [];
    }
    /**
     * lastResponse is the text of the agent's final response (agent.logs `{target: uuid,
     * last_response: true}`); none is TranscriptUnavailable.
     */
    async lastResponse() {
        const params = { target: this.uuid, last_response: true };
        const res = (await this.#core.call("agent.logs", this.#core.withCaller(params)));
        const text = res?.response?.text;
        if (typeof text !== "string") {
            throw new TranscriptUnavailable("transcript_unavailable", `no final response of ${this.path} was found`, { uuid: this.uuid });
        }
        return text;
    }
    /** kill ends the agent (agent.kill `{targets: [uuid], force}`); the raw result. */
    kill(opts = {}) {
        const params = { targets: [this.uuid], force: opts.force ?? false };
        return this.#core.call("agent.kill", this.#core.withCaller(params));
    }
    /**
     * followLogs yields the transcript's entries as they appear: those already there, then
     * new ones, polling agent.logs every intervalMs. A transcript not readable yet
     * (TranscriptUnavailable) counts as no entries. Once agent.ls `{pattern: uuid, all:
     * true}` shows the agent ended, one last poll drains what is left and the iteration
     * ends. Leaving the loop or aborting the signal stops the polling.
     */
    async *followLogs(opts = {}) {
        const every = opts.intervalMs ?? FOLLOW_INTERVAL_MS;
        let seen = 0;
        let first = true;
        const poll = async () => {
            let res;
            try {
                res = (await this.#core.call("agent.logs", this.#core.withCaller({ target: this.uuid, last_response: false })));
            }
            catch (e) {
                if (e instanceof TranscriptUnavailable)
                    return { fresh: [], ended: false };
                if (!serverGone(e))
                    throw e;
                await this.#core.reconnect("agent.logs", e); // the next poll goes on from seen
                return { fresh: [], ended: false };
            }
            const all = res?.entries ?? [];
            let fresh = all.slice(seen);
            if (first && opts.tail !== undefined && opts.tail >= 0 && fresh.length > opts.tail)
                fresh = fresh.slice(fresh.length - opts.tail);
            first = false;
            seen = Math.max(seen, all.length);
            return { fresh, ended: res?.resolved === "latest_ended" };
        };
        for (;;) {
            const { fresh, ended } = await poll();
            yield* fresh;
            if (ended)
                return;
            if (await this.#hasEnded()) {
                yield* (await poll()).fresh;
                return;
            }
            if (opts.signal?.aborted)
                return;
            try {
                await sleep(every, undefined, { signal: opts.signal });
            }
            catch {
                return; // aborted
            }
        }
    }
    async #hasEnded() {
        let res;
        try {
            res = (await this.#core.call("agent.ls", this.#core.withCaller({ pattern: this.uuid, all: true })));
        }
        catch (e) {
            if (e instanceof NotFound)
                return true; // the row is gone
            if (!serverGone(e))
                throw e;
            await this.#core.reconnect("agent.ls", e);
            return false;
        }
        const row = res?.agents?.[0];
        return !row || row.status === "ended";
    }
}
