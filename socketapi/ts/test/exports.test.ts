// The package root exports what clients.md (b) lists, from the built package (dist/, what
// the binary ships). The option types are used in a typed program below, which
// `npm run typecheck` (and `go test ./socketapi/ts`) compiles against dist/index.d.ts.

import assert from "node:assert/strict";
import { test } from "node:test";

import * as sdk from "../dist/index.js";
import type {
  AgentWaitOptions,
  KillOptions,
  LogsOptions,
  LoopCreateOptions,
  LoopMembership,
  LsOptions,
  OrcrClient,
  OrcrContext,
  RunOptions,
  SpawnOptions,
  WaitOptions,
  WatchOptions,
} from "../dist/index.js";

const runtime = [
  "orcr", "OrcrClient", "AgentHandle", "AttachHandle", "Watch", "loopNameFrom", "fromEnv", "GeneratedClient",
  "PROTOCOL_METHODS", "STREAMING_METHODS", "EVENT_KINDS", "ERROR_CODES", "Transport", "Subscription", "ORCR_PROTOCOL",
  "orcrHome", "socketPath", "OrcrError", "NotFound", "InvalidRequest", "StateConflict", "Blocked", "Timeout",
  "IntegrationMissing", "TranscriptUnavailable", "EnvironmentError", "ServerError", "errorFromWire", "Pattern",
  "resolveCreate", "resolveSelector", "validatePath", "validSegment", "expandRand", "isPattern", "nameOf", "scopeOfAgent",
];

test("every documented runtime export is there", () => {
  const got = sdk as unknown as Record<string, unknown>;
  for (const name of runtime) assert.notEqual(got[name], undefined, name);
  assert.equal(sdk.ORCR_PROTOCOL, 1);
  assert.ok(sdk.orcr instanceof sdk.OrcrClient);
  for (const api of ["agent", "loop", "server", "api", "context", "gen"] as const) assert.equal(typeof sdk.orcr[api], "object", api);
  for (const f of ["run", "wait", "ls", "kill", "prepareAttach"] as const) assert.equal(typeof sdk.orcr.agent[f], "function", f);
  for (const f of ["create", "pause", "resume", "rm", "ls", "logs"] as const) assert.equal(typeof sdk.orcr.loop[f], "function", f);
  for (const f of ["start", "stop", "ls"] as const) assert.equal(typeof sdk.orcr.loop.run[f], "function", f);
  for (const f of ["ask", "scope", "watch", "loopNameFrom"] as const) assert.equal(typeof sdk.orcr[f], "function", f);
});

// A program in the documented style: it only has to compile.
export async function documentedProgram(orcr: OrcrClient): Promise<void> {
  const run: RunOptions = { name: "w", prompt: "p", agent: "claude", model: "m", effort: "e", cwd: "/", timeout: "5m", gc: "never" };
  const spawn: SpawnOptions = { path: "x/y", prompt: "p" };
  const wait: WaitOptions = { timeout: "1m" };
  const waitAny: AgentWaitOptions = { timeout: "1m", any: true };
  const logs: LogsOptions = { tail: 5 };
  const ls: LsOptions = { pattern: "**", agent: "claude", status: "idle", managed: true, all: true };
  const kill: KillOptions = { force: true };
  const watch: WatchOptions = { pattern: "a/**", agent: "codex", status: "working", managed: true, sinceSeq: 0 };
  const loop: LoopCreateOptions = { name: "l", command: ["node", "/abs/x.js"], cron: "*/5 * * * *", overlap: "skip", maxConcurrency: 1, timeout: "4m" };
  const ctx: OrcrContext = orcr.context.fromEnv();
  const member: LoopMembership | undefined = ctx.loop;
  await orcr.scope("demo_{rand}", async (scope: string) => {
    const h = await orcr.agent.run(run);
    const w = await h.wait(wait);
    if (w.all_ok && !w.timed_out) console.log(await h.lastResponse(), scope, member?.runId);
    await h.send("more");
    for (const e of await h.logs(logs)) console.log(e.role, e.text);
    for await (const e of h.followLogs({ intervalMs: 500 })) console.log(e.text);
    const text: string = await orcr.ask(spawn);
    console.log(text, (await orcr.agent.ls(ls)).map((a) => a.path));
    await orcr.agent.wait("*", wait);
    const first = await orcr.agent.wait(["a", "b"], waitAny);
    console.log(first.first_settled, first.targets?.map((t) => `${t.path} ${t.reason}`));
    await orcr.agent.kill(undefined, kill);
    await h.kill({ force: false });
  }, { killOnThrow: true });
  const wt = await orcr.watch(watch);
  console.log(wt.snapshot.agents?.length, wt.snapshotSeq);
  for await (const ev of wt) {
    // Events are typed by kind: narrowing gives each kind's fields.
    if (ev.kind === "agent.status_changed") console.log(ev.status, ev.input_seq, ev.agent?.path);
    if (ev.kind === "loop_run.ended") console.log(ev.run?.path, ev.exit_code);
    if (ev.kind === "agent.ended") break;
  }
  const created = await orcr.loop.create(loop);
  const started = await orcr.loop.run.start(String(created.name));
  console.log(started.runId, started.dataDir, await orcr.loop.logs("l", { run: started.runId, source: "command", tail: 10 }));
  await orcr.loop.run.stop("l", { runId: started.runId });
  await orcr.loop.rm("l", { killActive: true });
  const a = await orcr.agent.prepareAttach("demo/w", { takeover: false });
  await a.heartbeat();
  await a.release();
  console.log((await orcr.server.status()).version, (await orcr.api.snapshot()).snapshot_seq, orcr.loopNameFrom("l/r1"));
  console.log(await orcr.gen.agentLs({ all: true }), await orcr.gen.call("server.handshake", {}));
  try {
    await orcr.agent.run({ name: "w" });
  } catch (e) {
    if (e instanceof sdk.StateConflict && e.forceRequired) console.log(e.code, e.details);
  }
}
