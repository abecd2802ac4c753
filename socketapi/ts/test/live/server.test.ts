// orcr.server, orcr.api and orcr.gen against the real server, and auto-start of a stopped
// one.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { EVENT_KINDS, orcr, OrcrClient, PROTOCOL_METHODS, STREAMING_METHODS, Transport, orcrHome, socketPath } from "../../dist/index.js";
import { mock, skip, until } from "./live.js";

describe("server, api, gen", { skip, timeout: 120_000 }, () => {
  test("server.status and handshake", async () => {
    const st = await orcr.server.status();
    assert.equal(st.protocol, 1);
    assert.equal(st.version, "0.1.0");
    assert.equal(st.socket, socketPath());
    assert.equal(orcrHome(), process.env.ORCR_HOME);
    const hs = await orcr.server.handshake();
    assert.equal(hs.ready, true);
    assert.equal(hs.pid, st.pid);
  });

  test("the live schema is the generated layer's", async () => {
    const doc = (await orcr.api.schema()) as { methods: Record<string, { streaming: boolean }>; events: Record<string, unknown> };
    assert.deepEqual(Object.keys(doc.methods).sort(), [...PROTOCOL_METHODS]);
    assert.deepEqual(Object.keys(doc.methods).filter((m) => doc.methods[m].streaming).sort(), [...STREAMING_METHODS]);
    assert.deepEqual(Object.keys(doc.events).sort(), [...EVENT_KINDS]);
    const snap = await orcr.api.snapshot();
    assert.equal(typeof snap.snapshot_seq, "number");
    assert.ok(Array.isArray(snap.agents) && Array.isArray(snap.loops) && Array.isArray(snap.queue));
  });

  test("gen: raw calls of the methods", async () => {
    const hs = await orcr.gen.serverHandshake();
    assert.equal(hs.protocol, 1);
    const ls = await orcr.gen.agentLs({ all: true });
    assert.ok(Array.isArray(ls.agents));
    const loops = await orcr.gen.call("loop.ls", { all: true });
    assert.ok(Array.isArray(loops.loops));
    const sub = await orcr.gen.eventsSubscribe({ since_seq: 1_000_000_000 });
    assert.equal(typeof sub.initial.subscription, "number");
    sub.close();
    const w = await orcr.gen.watchOpen();
    assert.equal(typeof w.initial.snapshot_seq, "number");
    w.close();
  });

  test("a stopped server is started again by the next call", async () => {
    const first = await orcr.server.handshake();
    assert.deepEqual(await orcr.server.stop(), { status: "stopping" });
    const probe = new Transport();
    await until("the server to stop", async () => {
      try {
        await probe.request("server.handshake", {}, { timeoutMs: 1000 });
        return false;
      } catch {
        return true;
      }
    });
    // The default client saw a server before: its next call finds none and starts one.
    const rows = await orcr.agent.ls();
    assert.ok(Array.isArray(rows));
    const again = await orcr.server.handshake();
    assert.notEqual(again.pid, first.pid, "a new server process");
    // So does a new client.
    assert.equal((await new OrcrClient().server.status()).pid, again.pid);
  });

  test("a wait rides over a kill -9 of the server: the next server is started and the wait answers", async () => {
    const resumed: string[] = [];
    const c = new OrcrClient(undefined, { onResume: (m) => resumed.push(m) });
    const h = await c.agent.run({ path: "/sdk_restart/w", agent: mock, prompt: "say=after turn_ms=4000", gc: "never" });
    await until("the agent is working", async () => (await c.agent.ls({ pattern: "/sdk_restart/w" }))[0]?.status === "working");
    const first = await c.server.handshake();
    const waiting = h.wait({ timeout: "60s" });
    // Whether the kill comes before the wait's request reached the server or after, the
    // wait must go on with the next server.
    process.kill(Number(first.pid), "SIGKILL");
    const w = await waiting;
    assert.equal(w.all_ok, true);
    assert.equal(w.targets?.[0]?.reason, "turn_complete");
    assert.deepEqual(resumed, ["agent.wait"]);
    assert.notEqual((await c.server.handshake()).pid, first.pid, "a new server process");
    await h.kill();
  });
});
