// Who the program runs as, read from the ORCR_* variables an agent pane or a loop run gets
// (docs/cli.md §7.1–§7.3).
import { join } from "node:path";
import { scopeOfAgent } from "./path.js";
function val(env, key) {
    const v = env[key];
    return v === undefined || v === "" ? undefined : v;
}
/** loopNameFrom is the first segment of a path: the loop name of a run path. */
export function loopNameFrom(path) {
    const p = path.startsWith("/") ? path.slice(1) : path;
    const i = p.indexOf("/");
    return i < 0 ? p : p.slice(0, i);
}
function membership(path, dataDir) {
    const [name, runId = ""] = path.split("/");
    return { name, runId, path: runId ? `${name}/${runId}` : name, dataDir };
}
/**
 * fromEnv reads the context from env (process.env by default). Empty variables count as
 * unset.
 */
export function fromEnv(env = process.env) {
    const id = val(env, "ORCR_ID");
    const path = val(env, "ORCR_PATH");
    const agentDir = val(env, "ORCR_AGENT_DATA_DIR");
    const loopDir = val(env, "ORCR_LOOP_DATA_DIR");
    if (id && path && !agentDir && loopDir) {
        const loop = membership(path, loopDir);
        return { kind: "loopRun", id, path, scope: path, dataDir: loop.runId ? join(loopDir, loop.runId) : loopDir, loop };
    }
    if (id && path && agentDir) {
        const ctx = { kind: "agent", id, path, scope: scopeOfAgent(path), dataDir: agentDir };
        const parentId = val(env, "ORCR_PARENT_ID");
        const parentPath = val(env, "ORCR_PARENT_PATH");
        if (parentId || parentPath) {
            ctx.parent = {};
            if (parentId)
                ctx.parent.id = parentId;
            if (parentPath)
                ctx.parent.path = parentPath;
        }
        if (loopDir)
            ctx.loop = membership(path, loopDir);
        return ctx;
    }
    return { kind: "root" };
}
