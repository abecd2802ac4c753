// Who the program runs as, read from the ORCR_* variables an agent pane or a loop run gets
// (docs/cli.md §7.1–§7.3).

import { join } from "node:path";

import { scopeOfAgent } from "./path.js";
import type { Env } from "./wire.js";

/** The loop a context belongs to. */
export interface LoopMembership {
  /** The loop's name: the first segment of the path. */
  name: string;
  /** The run id: the second segment of the path. */
  runId: string;
  /** The run's path, `<loop>/<run_id>`. */
  path: string;
  /** The loop's data directory (ORCR_LOOP_DATA_DIR). */
  dataDir: string;
}

/**
 * OrcrContext says what the process is: an agent (its pane has ORCR_AGENT_DATA_DIR, ORCR_ID
 * and ORCR_PATH), a loop run's command (ORCR_ID, ORCR_PATH and ORCR_LOOP_DATA_DIR without
 * ORCR_AGENT_DATA_DIR) or a root shell (anything else). `scope` is where relative paths
 * land: an agent's path without its name, a run's whole path; none at root.
 */
export interface OrcrContext {
  kind: "agent" | "loopRun" | "root";
  /** ORCR_ID: the agent's or the run's uuid. */
  id?: string;
  /** ORCR_PATH. */
  path?: string;
  /** Where relative paths land ("" or absent: the root). */
  scope?: string;
  /** The agent's data directory, or the run's (`<loop data dir>/<run_id>`). */
  dataDir?: string;
  /** Who started the agent (ORCR_PARENT_ID, ORCR_PARENT_PATH), when known. */
  parent?: { id?: string; path?: string };
  /** The loop the agent or run belongs to. */
  loop?: LoopMembership;
}

function val(env: Env, key: string): string | undefined {
  const v = env[key];
  return v === undefined || v === "" ? undefined : v;
}

/** loopNameFrom is the first segment of a path: the loop name of a run path. */
export function loopNameFrom(path: string): string {
  const p = path.startsWith("/") ? path.slice(1) : path;
  const i = p.indexOf("/");
  return i < 0 ? p : p.slice(0, i);
}

function membership(path: string, dataDir: string): LoopMembership {
  const [name, runId = ""] = path.split("/");
  return { name, runId, path: runId ? `${name}/${runId}` : name, dataDir };
}

/**
 * fromEnv reads the context from env (process.env by default). Empty variables count as
 * unset.
 */
export function fromEnv(env: Env = process.env): OrcrContext {
  const id = val(env, "ORCR_ID");
  const path = val(env, "ORCR_PATH");
  const agentDir = val(env, "ORCR_AGENT_DATA_DIR");
  const loopDir = val(env, "ORCR_LOOP_DATA_DIR");
  if (id && path && !agentDir && loopDir) {
    const loop = membership(path, loopDir);
    return { kind: "loopRun", id, path, scope: path, dataDir: loop.runId ? join(loopDir, loop.runId) : loopDir, loop };
  }
  if (id && path && agentDir) {
    const ctx: OrcrContext = { kind: "agent", id, path, scope: scopeOfAgent(path), dataDir: agentDir };
    const parentId = val(env, "ORCR_PARENT_ID");
    const parentPath = val(env, "ORCR_PARENT_PATH");
    if (parentId || parentPath) {
      ctx.parent = {};
      if (parentId) ctx.parent.id = parentId;
      if (parentPath) ctx.parent.path = parentPath;
    }
    if (loopDir) ctx.loop = membership(path, loopDir);
    return ctx;
  }
  return { kind: "root" };
}
