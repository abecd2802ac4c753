// AttachHandle: an attach lease on an agent's pane and the herdr command that shows it
// (docs/protocol.md §5.13–§5.15).
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { environmentError } from "./errors.js";
/** How soon a failing attach command counts as herdr refusing the pane id (then the fallback runs). */
export const ATTACH_REFUSAL_WINDOW_MS = 2_000;
/** The heartbeat interval when the lease names no ttl. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/**
 * AttachHandle is a lease taken with orcr.agent.prepareAttach: `command` is the argv that
 * attaches a terminal to the agent's pane, `fallbackCommand` the one to run when herdr
 * refuses the pane id, `leaseId`, `uuid`, `path`, `ttlMs` (the lease's lifetime; heartbeat
 * before it passes) and `takeover`.
 */
export class AttachHandle {
    command;
    fallbackCommand;
    leaseId;
    uuid;
    path;
    ttlMs;
    takeover;
    #core;
    /** @internal — handles come from orcr.agent.prepareAttach. */
    constructor(core, res) {
        this.#core = core;
        this.command = [...(res.command ?? [])];
        this.fallbackCommand = res.fallback_command ? [...res.fallback_command] : undefined;
        this.leaseId = String(res.lease_id ?? "");
        this.uuid = String(res.uuid ?? "");
        this.path = String(res.path ?? "");
        this.ttlMs = typeof res.ttl_ms === "number" && res.ttl_ms > 0 ? res.ttl_ms : undefined;
        this.takeover = res.takeover === true;
    }
    /** heartbeat extends the lease (agent.attach.heartbeat `{lease_id}`); false when the lease is gone. */
    async heartbeat() {
        const res = (await this.#core.call("agent.attach.heartbeat", { lease_id: this.leaseId }));
        return res?.ok === true;
    }
    /** release gives the lease back (agent.attach.release `{lease_id}`); false when it was already gone. */
    async release() {
        const res = (await this.#core.call("agent.attach.release", { lease_id: this.leaseId }));
        return res?.released === true;
    }
    /**
     * run executes the attach command on this process's terminal (stdio inherited),
     * heartbeating every max(500 ms, ttl/2) (5 s without a ttl), and releases the lease when
     * it ends, whatever happened. When the command fails within 2 s and there is a
     * fallback command, the fallback runs instead. It resolves to the command's exit code
     * (128 + the signal number when a signal ended it).
     */
    async run() {
        const every = this.ttlMs ? Math.max(500, this.ttlMs / 2) : DEFAULT_HEARTBEAT_MS;
        const timer = setInterval(() => {
            this.heartbeat().catch(() => { });
        }, every);
        try {
            const start = Date.now();
            let code = await runForeground(this.command);
            if (code !== 0 && this.fallbackCommand?.length && Date.now() - start < ATTACH_REFUSAL_WINDOW_MS) {
                code = await runForeground(this.fallbackCommand);
            }
            return code;
        }
        finally {
            clearInterval(timer);
            await this.release().catch(() => false);
        }
    }
}
function runForeground(argv) {
    return new Promise((resolve, reject) => {
        if (argv.length === 0) {
            reject(environmentError("herdr_error", "the attach lease names no command"));
            return;
        }
        const child = spawn(argv[0], argv.slice(1), { stdio: "inherit" });
        child.on("error", (e) => {
            const cause = e.code === "ENOENT" ? "herdr_missing" : "herdr_error";
            reject(environmentError(cause, `cannot run ${argv[0]}: ${e.message}`));
        });
        child.on("exit", (code, signal) => {
            if (code !== null)
                resolve(code);
            else
                resolve(128 + ((signal && constants.signals[signal]) || 0));
        });
    });
}
