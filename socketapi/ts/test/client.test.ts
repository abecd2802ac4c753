// Each helper against a recording fake server: the socket method and params of the
// surface-to-socket mapping (clients.md (b)), the caller identity, scope defaults, and what
// comes back.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  AgentHandle,
  InvalidRequest,
  NotFound,
  OrcrClient,
  PROTOCOL_METHODS,
  TranscriptUnavailable,
  Transport,
  Watch,
} from "../src/index.js";
import { fakeServer, handshakeAnswer, type FakeServer, type Received } from "./fakeserver.js";

const row = { uuid: "0192aaaa-0000-7000-8000-000000000001", path: "demo/w", data_dir: "/h/data/demo/w/u", status: "queued", agent: "mock", managed: true };

/** answers is what the fake server says per method (a function of the request, or a fixed result). */
const answers: Record<string, (req: Received) => unknown> = {
  "agent.run": (req) => ({ agent: req.params.path === "/silent" ? { ...row, uuid: "none-x" } : row, permissions: "bypass" }),
  "agent.ask": (req) =>
    req.params.path === "/demo/silent" || req.params.resume === "none-x"
      ? { uuid: "u", path: "demo/silent" }
      : { uuid: "u", path: "demo/a", response: { text: "hi\nDONE", final: true } },
  "agent.wait": () => ({ targets: [], all_ok: true, timed_out: false, decision_seq: 3 }),
  "agent.send": () => ({ uuid: row.uuid, path: row.path, delivered_while: "idle", input_seq: 2 }),
  "agent.logs": (req) =>
    req.params.last_response ? (req.params.target === "none-x" ? { uuid: "n" } : { response: { text: "last", final: true } }) : { entries: [{ role: "user", kind: "text", text: "p" }] },
  "agent.kill": () => ({ killed: [], skipped: [], all_killed: true }),
  "agent.ls": () => ({ agents: [row] }),
  "agent.attach.prepare": () => ({ uuid: "u", path: "demo/w", lease_id: "lease-1", takeover: true, ttl_ms: 30000, command: ["herdr", "agent", "attach", "p1"] }),
  "agent.attach.heartbeat": () => ({ ok: true }),
  "agent.attach.release": () => ({ released: true }),
  "loop.create": () => ({ loop: { uuid: "l", name: "nightly", argv: ["x"], cancel: "orcr loop rm nightly" } }),
  "loop.pause": () => ({ updated: [{ name: "nightly", status: "paused" }], skipped: [] }),
  "loop.resume": () => ({ updated: [{ name: "nightly", status: "active" }], skipped: [] }),
  "loop.rm": () => ({ removed: [{ name: "nightly", reason: "removed" }], skipped: [] }),
  "loop.ls": () => ({ loops: [{ name: "nightly" }] }),
  "loop.logs": () => ({ lines: [{ run: "nightly/r1", source: "command", ts: 1, text: "x" }] }),
  "loop.run.start": () => ({ run: { uuid: "ru", run_id: "rabcde", path: "nightly/rabcde", loop: "nightly", kind: "manual", status: "running" } }),
  "loop.run.stop": () => ({ stopped: [], skipped: [] }),
  "loop.run.ls": () => ({ runs: [{ run_id: "rabcde" }] }),
  "server.status": () => ({ version: "0.1.0", protocol: 1 }),
  "server.stop": () => ({ status: "stopping" }),
  "api.schema": () => ({ methods: {} }),
  "api.snapshot": () => ({ snapshot_seq: 5, agents: [], loops: [], queue: [] }),
};

let srv: FakeServer;
before(async () => {
  srv = await fakeServer({
    onRequest: (req, conn) => {
      const hs = handshakeAnswer(req);
      if (hs) return hs;
      if (req.method === "watch.open") {
        conn.write(JSON.stringify({ id: req.id, ok: true, result: { subscription: 2, snapshot_seq: 8, snapshot: { snapshot_seq: 8, agents: [], loops: [], queue: [] } } }) + "\n");
        conn.end(JSON.stringify({ subscription: 2, seq: 9, event: { kind: "agent.created", ref_uuid: "u", uuid: "u", agent: row } }) + "\n");
        return undefined;
      }
      if (req.method === "fleet.events") {
        // gpu1's events 6 and 7 after the cursor 5, then none: the read waits, as the
        // server's does, before it answers empty.
        const since = ((req.params.since ?? {}) as Record<string, number>).gpu1 ?? 0;
        const events = [6, 7]
          .filter((seq) => seq > since)
          .map((seq) => ({ host: "gpu1", seq, ts: 1, event: { kind: "agent.created", ref_uuid: `u${seq}`, uuid: `u${seq}`, agent: { ...row, uuid: `u${seq}` } } }));
        if (events.length > 0) return { result: { events, cursors: { gpu1: 7 }, more: false } };
        setTimeout(() => conn.write(JSON.stringify({ id: req.id, ok: true, result: { events: [], cursors: { gpu1: since }, more: false } }) + "\n"), 100);
        return undefined;
      }
      if (req.method === "fleet.call") {
        // The member's answer, as fleet.call wraps it (docs/fleet.md §4.6); gpu1 refuses kills.
        const inner = { ...req, method: String(req.params.method), params: (req.params.params ?? {}) as Record<string, unknown> };
        if (req.params.host === "gpu1" && inner.method === "agent.kill") {
          return { error: { code: "invalid_request", message: "not allowed", details: { reason: "fleet_not_allowed", method: "agent.kill", host: "gpu1" } } };
        }
        const m = answers[inner.method];
        return m ? { result: { host: req.params.host, result: m(inner) } } : { error: { code: "invalid_request", message: "unknown", details: { reason: "unknown_method" } } };
      }
      const a = answers[req.method];
      return a ? { result: a(req) } : { error: { code: "invalid_request", message: "unknown", details: { reason: "unknown_method" } } };
    },
  });
});
after(() => srv.close());

/** last returns the params of the latest request of method (after clearing the log). */
function sent(method: string): Record<string, unknown> {
  const r = [...srv.requests].reverse().find((q) => q.method === method);
  assert.ok(r, `no ${method} request was sent`);
  return r.params;
}

function client(env: Record<string, string> = {}): OrcrClient {
  return new OrcrClient(new Transport(srv.socket), { env, autoStart: false });
}

const agentEnv = { ORCR_ID: "0192cafe-0000-7000-8000-00000000000a", ORCR_PATH: "lead/boss", ORCR_AGENT_DATA_DIR: "/h/data/lead/boss/x" };

describe("onHost", () => {
  test("calls go through fleet.call with the member's answers, no caller, the scope's paths; watch reads the fleet's stream", async () => {
    const c = client(agentEnv).onHost("gpu1");
    assert.equal(c.host, "gpu1");
    assert.deepEqual(await c.agent.ls({ pattern: "a/*" }), [row]);
    assert.deepEqual(sent("fleet.call"), { host: "gpu1", method: "agent.ls", params: { pattern: "/lead/a/*" } });
    await c.agent.wait("w", { timeout: "5s" });
    assert.deepEqual(sent("fleet.call"), { host: "gpu1", method: "agent.wait", params: { targets: ["/lead/w"], timeout: "5s" } });
    await assert.rejects(c.agent.kill("x"), (e: unknown) => e instanceof InvalidRequest && e.reason === "fleet_not_allowed" && e.details?.host === "gpu1");
    // watch: the member's snapshot over fleet.call, then its events from the fleet's stream.
    const w = await c.watch();
    assert.equal(w.snapshotSeq, 5);
    assert.deepEqual(sent("fleet.call"), { host: "gpu1", method: "api.snapshot", params: {} });
    const refs: string[] = [];
    for await (const ev of w) {
      refs.push(String(ev.ref_uuid));
      if (refs.length === 2) break;
    }
    assert.deepEqual(refs, ["u6", "u7"]);
    assert.equal(w.lastSeq, 7);
    assert.deepEqual(sent("fleet.events"), { since: { gpu1: 5 }, hosts: ["gpu1"], wait_ms: 5000 });
    assert.equal(w.closed, true);

    assert.equal(client().host, undefined);
  });
});

describe("orcr.agent", () => {
  test("run: an absolute path from name and scope, the options, the caller; a handle", async () => {
    const c = client(agentEnv);
    const h = await c.agent.run({ name: "w", prompt: "p", agent: "mock", model: "m", effort: "e", cwd: "/w", timeout: "1m", gc: "never" });
    assert.deepEqual(sent("agent.run"), {
      path: "/lead/w",
      prompt: "p",
      agent: "mock",
      model: "m",
      effort: "e",
      cwd: "/w",
      timeout: "1m",
      gc: "never",
      caller_id: agentEnv.ORCR_ID,
      caller_path: "lead/boss",
    });
    assert.ok(h instanceof AgentHandle);
    assert.deepEqual([h.uuid, h.path, h.name, h.dataDir], [row.uuid, "demo/w", "w", "/h/data/demo/w/u"]);
    await c.agent.run({ path: "/abs/x" });
    assert.deepEqual(sent("agent.run"), { path: "/abs/x", caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    await c.agent.run({ path: "/abs/x", worktree: true, keepWorktree: false });
    assert.deepEqual(sent("agent.run"), { path: "/abs/x", worktree: true, caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    await assert.rejects(c.agent.run({ prompt: "no name" }), (e: unknown) => e instanceof InvalidRequest && e.reason === "name_required");
  });

  test("a root shell sends no caller and gets root paths", async () => {
    const c = client();
    await c.agent.run({ name: "w" });
    assert.deepEqual(sent("agent.run"), { path: "/w" });
  });

  test("wait, kill: patterns made absolute; none means the scope, or no_scope at root", async () => {
    const c = client(agentEnv);
    await c.agent.wait();
    assert.deepEqual(sent("agent.wait"), { targets: ["/lead/**"], caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    await c.agent.wait(["a/*", "0192aaaa-0000"], { timeout: "5s" });
    assert.deepEqual(sent("agent.wait").targets, ["/lead/a/*", "0192aaaa-0000"]);
    assert.equal(sent("agent.wait").timeout, "5s");
    assert.equal(sent("agent.wait").any, undefined);
    await c.agent.wait(["a", "b"], { any: true });
    assert.equal(sent("agent.wait").any, true);
    await c.agent.kill("x", { force: true });
    assert.deepEqual(sent("agent.kill"), { targets: ["/lead/x"], force: true, caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    await c.agent.kill();
    assert.deepEqual(sent("agent.kill").targets, ["/lead/**"]);
    assert.equal(sent("agent.kill").force, false);
    const root = client();
    for (const p of [root.agent.wait(), root.agent.kill(), root.agent.wait([])]) {
      await assert.rejects(p, (e: unknown) => e instanceof InvalidRequest && e.reason === "no_scope");
    }
    await root.agent.wait("**");
    assert.deepEqual(sent("agent.wait").targets, ["/**"]);
  });

  test("ls: the filters as given, the pattern absolute, the rows", async () => {
    const c = client(agentEnv);
    assert.deepEqual(await c.agent.ls(), [row]);
    assert.deepEqual(sent("agent.ls"), { caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    await c.agent.ls({ pattern: "**", agent: "mock", status: "idle", managed: true, unmanaged: true, all: true });
    assert.deepEqual(sent("agent.ls"), {
      pattern: "/lead/**",
      agent: "mock",
      status: "idle",
      managed: true,
      unmanaged: true,
      all: true,
      caller_id: agentEnv.ORCR_ID,
      caller_path: "lead/boss",
    });
    await c.agent.ls({ managed: false, all: false });
    assert.deepEqual(sent("agent.ls"), { caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
  });

  test("prepareAttach, heartbeat, release", async () => {
    const c = client();
    const a = await c.agent.prepareAttach("demo/w", { takeover: true });
    assert.deepEqual(sent("agent.attach.prepare"), { target: "/demo/w", takeover: true, client_pid: process.pid });
    assert.deepEqual([a.leaseId, a.uuid, a.path, a.ttlMs, a.takeover, a.command], ["lease-1", "u", "demo/w", 30000, true, ["herdr", "agent", "attach", "p1"]]);
    assert.equal(await a.heartbeat(), true);
    assert.deepEqual(sent("agent.attach.heartbeat"), { lease_id: "lease-1" });
    assert.equal(await a.release(), true);
    assert.deepEqual(sent("agent.attach.release"), { lease_id: "lease-1" });
  });
});

describe("handles and ask", () => {
  test("every handle call targets the uuid", async () => {
    const c = client(agentEnv);
    const h = await c.agent.run({ name: "w" });
    const lineage = { caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" };
    await h.wait({ timeout: "2s" });
    assert.deepEqual(sent("agent.wait"), { targets: [row.uuid], timeout: "2s", ...lineage });
    assert.equal((await h.send("again")).input_seq, 2);
    assert.deepEqual(sent("agent.send"), { target: row.uuid, prompt: "again", ...lineage });
    assert.deepEqual(await h.logs({ tail: 3 }), [{ role: "user", kind: "text", text: "p" }]);
    assert.deepEqual(sent("agent.logs"), { target: row.uuid, last_response: false, tail: 3, ...lineage });
    assert.equal(await h.lastResponse(), "last");
    assert.deepEqual(sent("agent.logs"), { target: row.uuid, last_response: true, ...lineage });
    await h.kill();
    assert.deepEqual(sent("agent.kill"), { targets: [row.uuid], force: false, ...lineage });
  });

  test("lastResponse without text is TranscriptUnavailable {uuid}", async () => {
    const h = await client().agent.run({ name: "silent" });
    await assert.rejects(h.lastResponse(), (e: unknown) => e instanceof TranscriptUnavailable && e.details?.uuid === "none-x");
  });

  test("ask: agent.run (gc immediate), then agent.ask resuming that agent; the response text; none is TranscriptUnavailable {path}", async () => {
    const c = client();
    assert.equal(await c.ask({ name: "a", prompt: "say=hi", agent: "mock", timeout: "1m" }), "hi\nDONE");
    assert.deepEqual(sent("agent.run"), { path: "/a", prompt: "say=hi", agent: "mock", timeout: "1m", gc: "immediate" });
    assert.deepEqual(sent("agent.ask"), { resume: row.uuid, timeout: "1m" });
    await c.ask({ name: "a", cwd: "/repo", worktree: "feat", keepWorktree: true });
    assert.deepEqual(sent("agent.run"), { path: "/a", cwd: "/repo", worktree: true, worktree_branch: "feat", keep_worktree: true, gc: "immediate" });
    assert.deepEqual(sent("agent.ask"), { resume: row.uuid });
    // A timeout the server will refuse goes to agent.ask as it is, nothing run first.
    const runs = srv.requests.filter((q) => q.method === "agent.run").length;
    await c.ask({ name: "a", timeout: "soon" });
    assert.deepEqual(sent("agent.ask"), { path: "/a", timeout: "soon" });
    assert.equal(srv.requests.filter((q) => q.method === "agent.run").length, runs);
    await assert.rejects(c.ask({ name: "silent" }), (e: unknown) => e instanceof TranscriptUnavailable && e.details?.path === "demo/silent");
  });
});

describe("across a server restart (docs/protocol.md §1.10)", () => {
  // The fake server drops the connection of the first blocking call, as a server killed
  // in the middle of it would, and answers the next one.
  let gone: FakeServer;
  let drop: Set<string>;
  before(async () => {
    gone = await fakeServer({
      onRequest: (req, conn) => {
        const hs = handshakeAnswer(req);
        if (hs) return hs;
        if (drop.delete(req.method)) {
          conn.destroy();
          return undefined;
        }
        const a = answers[req.method];
        return a ? { result: a(req) } : undefined;
      },
    });
  });
  after(() => gone.close());
  const resumed: string[] = [];
  const restartable = () => new OrcrClient(new Transport(gone.socket), { env: {}, autoStart: false, onResume: (m) => resumed.push(m) });
  const params = (method: string) => gone.requests.filter((q) => q.method === method).map((q) => q.params);

  test("wait and a handle's wait are sent again with what is left of their timeout", async () => {
    drop = new Set(["agent.wait"]);
    const c = restartable();
    assert.equal((await c.agent.wait("/x/**", { timeout: "1m" })).decision_seq, 3);
    const waits = params("agent.wait");
    assert.equal(waits.length, 2);
    assert.deepEqual(waits[0], { targets: ["/x/**"], timeout: "1m" });
    const left = /^([0-9]+)ms$/.exec(String(waits[1].timeout));
    assert.ok(left && Number(left[1]) <= 60_000 && Number(left[1]) > 50_000, `resent timeout ${String(waits[1].timeout)}`);
    assert.deepEqual(resumed, ["agent.wait"]);
    drop = new Set(["agent.wait"]);
    const h = await c.agent.run({ name: "w" });
    assert.equal((await h.wait()).decision_seq, 3);
    assert.deepEqual(params("agent.wait").slice(-2), [{ targets: [row.uuid] }, { targets: [row.uuid] }]);
  });

  test("ask resumes on the agent it ran: one agent.run, agent.ask {resume} twice", async () => {
    drop = new Set(["agent.ask"]);
    resumed.length = 0;
    const before = params("agent.run").length;
    assert.equal(await restartable().ask({ name: "a", timeout: "90s" }), "hi\nDONE");
    assert.equal(params("agent.run").length, before + 1);
    const asks = params("agent.ask");
    assert.equal(asks.length, 2);
    assert.deepEqual(asks[0], { resume: row.uuid, timeout: "90s" });
    assert.equal(asks[1].resume, row.uuid);
    assert.match(String(asks[1].timeout), /^[0-9]+ms$/);
    assert.deepEqual(resumed, ["agent.ask"]);
  });

  test("followLogs polls on from the entries it yielded", async () => {
    drop = new Set(["agent.logs"]);
    const h = await restartable().agent.run({ name: "w" });
    const got = [];
    for await (const e of h.followLogs({ intervalMs: 10 })) {
      got.push(e);
      break;
    }
    assert.deepEqual(got, [{ role: "user", kind: "text", text: "p" }]);
  });
});

describe("orcr.scope", () => {
  test("composes, resets with /, expands {rand}, and defaults wait/kill to the scope", async () => {
    const c = client();
    await c.scope("review", async (s) => {
      assert.equal(s, "review");
      await c.scope("fan_{rand}", async (inner) => {
        assert.match(inner, /^review\/fan_[a-z0-9]{5}$/);
        await c.agent.run({ name: "w" });
        assert.equal(sent("agent.run").path, `/${inner}/w`);
        await c.agent.wait();
        assert.deepEqual(sent("agent.wait").targets, [`/${inner}/**`]);
      });
      await c.scope("/top", async (abs) => assert.equal(abs, "top"));
      assert.equal(c.currentScope(), "review");
    });
    assert.equal(c.currentScope(), "");
    for (const bad of ["", "/", "Bad", "a//b"]) {
      await assert.rejects(c.scope(bad, async () => {}), InvalidRequest, bad);
    }
  });

  test("killOnThrow kills the subtree with force, then re-throws the original error", async () => {
    const c = client(agentEnv);
    const boom = new Error("boom");
    await assert.rejects(
      c.scope("job", async () => {
        throw boom;
      }, { killOnThrow: true }),
      (e: unknown) => e === boom,
    );
    assert.deepEqual(sent("agent.kill"), { targets: ["/lead/job/**"], force: true, caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    // Without killOnThrow nothing is killed.
    const before = srv.requests.length;
    await assert.rejects(c.scope("job", async () => {
      throw boom;
    }), (e: unknown) => e === boom);
    assert.equal(srv.requests.slice(before).filter((r) => r.method === "agent.kill").length, 0);
    // A kill that fails is swallowed.
    const dead = new OrcrClient(new Transport(srv.socket + ".gone"), { env: {}, autoStart: false });
    await assert.rejects(dead.scope("x", async () => {
      throw boom;
    }, { killOnThrow: true }), (e: unknown) => e === boom);
  });
});

describe("orcr.loop", () => {
  test("create, pause, resume, rm, ls, logs", async () => {
    const c = client(agentEnv);
    const l = await c.loop.create({ name: "nightly", command: ["node", "/w/job.js"], cron: "*/5 * * * *", maxConcurrency: 2, overlap: "skip", timeout: "4m" });
    assert.equal(l.name, "nightly");
    assert.deepEqual(sent("loop.create"), {
      name: "nightly",
      command: ["node", "/w/job.js"],
      cwd: process.cwd(),
      cron: "*/5 * * * *",
      max_concurrency: 2,
      overlap: "skip",
      timeout: "4m",
    });
    await c.loop.create({ name: "once", command: ["x"], onceAt: "10m", cwd: "/tmp" });
    assert.deepEqual(sent("loop.create"), { name: "once", command: ["x"], cwd: "/tmp", once_at: "10m" });
    await c.loop.pause("nightly");
    assert.deepEqual(sent("loop.pause"), { names: ["nightly"] });
    await c.loop.resume("nightly");
    assert.deepEqual(sent("loop.resume"), { names: ["nightly"] });
    await c.loop.rm("nightly", { killActive: true });
    assert.deepEqual(sent("loop.rm"), { names: ["nightly"], kill_active: true, caller_id: agentEnv.ORCR_ID, caller_path: "lead/boss" });
    assert.deepEqual(await c.loop.ls({ all: true, status: "ended" }), [{ name: "nightly" }]);
    assert.deepEqual(sent("loop.ls"), { all: true, status: "ended" });
    assert.equal((await c.loop.logs("nightly", { run: "r1", source: "command", tail: 5 })).length, 1);
    assert.deepEqual(sent("loop.logs"), { name: "nightly", run: "r1", source: "command", tail: 5 });
  });

  test("run.start adds runId and dataDir; run.stop, run.ls", async () => {
    const c = client();
    const r = await c.loop.run.start("nightly");
    assert.deepEqual(sent("loop.run.start"), { name: "nightly" });
    assert.equal(r.runId, "rabcde");
    assert.equal(r.status, "running");
    assert.equal(r.dataDir, `${new Transport(srv.socket).home}/data/nightly/rabcde`);
    await c.loop.run.stop("nightly", { runId: "rabcde" });
    assert.deepEqual(sent("loop.run.stop"), { name: "nightly", run: "rabcde" });
    await c.loop.run.stop("nightly");
    assert.deepEqual(sent("loop.run.stop"), { name: "nightly" });
    assert.deepEqual(await c.loop.run.ls("nightly"), [{ run_id: "rabcde" }]);
    assert.deepEqual(sent("loop.run.ls"), { name: "nightly", all: false });
  });
});

describe("server, api, watch, gen", () => {
  test("server and api calls are raw", async () => {
    const c = client();
    assert.equal((await c.server.status()).version, "0.1.0");
    assert.equal((await c.server.handshake()).protocol, 1);
    assert.deepEqual(await c.api.snapshot(), { snapshot_seq: 5, agents: [], loops: [], queue: [] });
    assert.deepEqual(await c.api.schema(), { methods: {} });
    assert.deepEqual(await c.server.stop(), { status: "stopping" });
    const none = new OrcrClient(new Transport(srv.socket + ".gone"), { autoStart: false });
    assert.deepEqual(await none.server.stop(), { status: "not_running" });
  });

  test("watch: the snapshot, its seq, the events; filters sent", async () => {
    const c = client();
    const w = await c.watch({ pattern: "demo/**", agent: "mock", sinceSeq: 3 });
    assert.ok(w instanceof Watch);
    assert.deepEqual(sent("watch.open"), { pattern: "/demo/**", agent: "mock", since_seq: 3 });
    assert.equal(w.snapshotSeq, 8);
    assert.equal(w.subscription, 2);
    const kinds: string[] = [];
    for await (const ev of w) kinds.push(ev.kind);
    assert.deepEqual(kinds, ["agent.created"]);
    assert.equal(w.lastSeq, 9);
    const other = await c.watch({ pattern: "/elsewhere/*" });
    const none: string[] = [];
    for await (const ev of other) none.push(ev.kind);
    assert.deepEqual(none, []);
  });

  test("watch filters: the snapshot's matching agents, then events of rows that match or matched", async () => {
    const a = (uuid: string, path: string, status: string, agent = "mock") => ({ uuid, path, status, agent, managed: true });
    const frames = [
      { kind: "agent.status_changed", uuid: "u1", ref_uuid: "u1", agent: a("u1", "demo/one", "idle") },
      { kind: "agent.created", uuid: "u9", ref_uuid: "u9", agent: a("u9", "other/x", "queued") },
      { kind: "agent.created", uuid: "u2", ref_uuid: "u2", agent: a("u2", "demo/two", "queued") },
      { kind: "attach.started", uuid: "u2", lease_id: "l", mode: "observe" },
      { kind: "attach.started", uuid: "u9", lease_id: "l", mode: "observe" },
      { kind: "agent.status_changed", uuid: "u2", ref_uuid: "u2", agent: a("u2", "demo/two", "ended") },
      { kind: "loop.created", ref_uuid: "loop-1", loop: { name: "n" } },
      { kind: "server_stopping" },
    ];
    const s = await fakeServer({
      onRequest: (req, conn) => {
        if (req.method === "server.handshake") return handshakeAnswer(req);
        const snapshot = { snapshot_seq: 1, agents: [a("u1", "demo/one", "working"), a("u8", "else/y", "working")], loops: [], queue: [{ uuid: "u8" }] };
        conn.write(JSON.stringify({ id: req.id, ok: true, result: { subscription: 1, snapshot_seq: 1, snapshot } }) + "\n");
        frames.forEach((event, i) => conn.write(JSON.stringify({ subscription: 1, seq: event.kind === "server_stopping" ? 0 : i + 2, event }) + "\n"));
        return undefined;
      },
    });
    try {
      const c = new OrcrClient(new Transport(s.socket), { autoStart: false });
      const w = await c.watch({ pattern: "/demo/*" });
      assert.deepEqual(w.snapshot.agents?.map((r) => r.uuid), ["u1"]);
      assert.deepEqual(w.snapshot.queue, []);
      const seen: string[] = [];
      for await (const ev of w) seen.push(`${ev.kind}:${String(ev.uuid ?? ev.ref_uuid ?? "")}`);
      assert.deepEqual(seen, [
        "agent.status_changed:u1",
        "agent.created:u2",
        "attach.started:u2",
        "agent.status_changed:u2",
        "loop.created:loop-1",
        "server_stopping:",
      ]);
      assert.equal(w.closed, true, "server_stopping ends the watch");
      // A status filter: the row must match once; after that the agent is followed.
      const ws = await c.watch({ status: "queued" });
      assert.deepEqual(ws.snapshot.agents, []);
      const st: string[] = [];
      for await (const f of ws.frames()) st.push(`${f.seq}:${f.event.kind}:${String(f.event.uuid ?? "")}`);
      assert.deepEqual(st, ["3:agent.created:u9", "4:agent.created:u2", "5:attach.started:u2", "6:attach.started:u9", "7:agent.status_changed:u2", "8:loop.created:", "0:server_stopping:"]);
      // No filter: everything.
      const all = await c.watch();
      let n = 0;
      for await (const _ of all) n++;
      assert.equal(n, frames.length);
      assert.equal(all.snapshot.agents?.length, 2);
    } finally {
      await s.close();
    }
  });

  test("gen: one method per protocol method, raw params, no lineage, no handshake", async () => {
    const c = client(agentEnv);
    const g = c.gen as unknown as Record<string, unknown>;
    for (const m of PROTOCOL_METHODS) {
      const name = m.replace(/[._]([a-z])/g, (_, ch: string) => ch.toUpperCase());
      assert.equal(typeof g[name], "function", name);
    }
    const before = srv.requests.length;
    assert.deepEqual(await c.gen.agentLs({ pattern: "x" }), { agents: [row] });
    assert.deepEqual(await c.gen.call("loop.ls", { all: true }), { loops: [{ name: "nightly" }] });
    assert.deepEqual(
      srv.requests.slice(before).map((r) => [r.method, r.params]),
      [
        ["agent.ls", { pattern: "x" }],
        ["loop.ls", { all: true }],
      ],
    );
    const sub = await c.gen.watchOpen();
    assert.equal(sub.initial.snapshot_seq, 8);
    sub.close();
    await assert.rejects(c.gen.call("no.such"), (e: unknown) => e instanceof InvalidRequest && e.reason === "unknown_method");
  });

  test("a NotFound from the server keeps its class", async () => {
    const s = await fakeServer({ onRequest: (req) => handshakeAnswer(req) ?? { error: { code: "not_found", message: "no", details: { target: ["/x/**"] } } } });
    try {
      const c = new OrcrClient(new Transport(s.socket), { autoStart: false });
      await assert.rejects(c.agent.wait("/x/**"), NotFound);
    } finally {
      await s.close();
    }
  });
});
