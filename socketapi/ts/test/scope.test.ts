// Scope composition as a seeded property: random trees of nested, concurrent orcr.scope
// frames against a plain list-of-segments oracle. Checks where relative names land,
// what a no-argument wait targets, and that no frame leaks into a sibling.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { composeScope, InvalidRequest, OrcrClient, Transport } from "../src/index.js";
import { fakeServer, handshakeAnswer, mulberry32, pick, type FakeServer } from "./fakeserver.js";

let srv: FakeServer;
before(async () => {
  srv = await fakeServer({
    onRequest: (req) => {
      const hs = handshakeAnswer(req);
      if (hs) return hs;
      // Echo what was asked for, so concurrent callers can each check their own request.
      if (req.method === "agent.run") return { result: { agent: { uuid: "u-1", path: String(req.params.path).slice(1) } } };
      if (req.method === "agent.wait") return { result: { targets: [], echo: req.params.targets } };
      return { result: {} };
    },
  });
});
after(() => srv.close());

const pool = ["a", "b", "fan", "x_1", "_", "0", "s".repeat(40), "t".repeat(63)];

/** The oracle: compose as lists of segments, with the grammar's limits. */
function oracleCompose(cur: string[], frag: { abs: boolean; segs: string[] }): { segs?: string[]; reason?: string } {
  const segs = frag.abs ? [...frag.segs] : [...cur, ...frag.segs];
  return limits(segs);
}

function limits(segs: string[]): { segs?: string[]; reason?: string } {
  if (segs.join("/").length > 256) return { reason: "path_too_long" };
  if (segs.length > 8) return { reason: "path_too_deep" };
  return { segs };
}

function fragment(rnd: () => number): { abs: boolean; segs: string[]; text: string } {
  const abs = rnd() < 0.2;
  const segs = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(rnd, pool));
  return { abs, segs, text: (abs ? "/" : "") + segs.join("/") };
}

async function jitter(rnd: () => number): Promise<void> {
  const r = rnd();
  if (r < 0.3) await new Promise((res) => setImmediate(res));
  else if (r < 0.5) await new Promise((res) => setTimeout(res, Math.floor(rnd() * 3)));
}

/** explore opens 1–3 concurrent child scopes under cur, checking each against the oracle. */
async function explore(c: OrcrClient, rnd: () => number, cur: string[], depth: number, stats: { frames: number; errors: number }): Promise<void> {
  const children = 1 + Math.floor(rnd() * 3);
  // Draw everything up front: the seeded stream must not depend on scheduling.
  const plans = Array.from({ length: children }, () => ({ frag: fragment(rnd), name: pick(rnd, pool), sub: mulberry32(Math.floor(rnd() * 2 ** 32)) }));
  await Promise.all(
    plans.map(async ({ frag, name, sub }) => {
      const want = oracleCompose(cur, frag);
      await jitter(sub);
      if (want.reason) {
        stats.errors++;
        await assert.rejects(c.scope(frag.text, async () => {}), (e: unknown) => e instanceof InvalidRequest && e.reason === want.reason, frag.text);
        assert.equal(c.currentScope(), cur.join("/"), "a refused scope changes nothing");
        return;
      }
      await c.scope(frag.text, async (scope) => {
        stats.frames++;
        const segs = want.segs!;
        assert.equal(scope, segs.join("/"));
        await jitter(sub);
        assert.equal(c.currentScope(), scope, "the frame survives awaits and concurrent siblings");
        const created = limits([...segs, name]);
        if (created.reason) {
          await assert.rejects(c.agent.run({ name }), (e: unknown) => e instanceof InvalidRequest && e.reason === created.reason);
        } else {
          const h = await c.agent.run({ name });
          assert.equal(h.path, created.segs!.join("/"));
        }
        const w = (await c.agent.wait()) as { echo?: string[] };
        assert.deepEqual(w.echo, [`/${scope}/**`]);
        if (depth < 3) await explore(c, sub, segs, depth + 1, stats);
        await jitter(sub);
        assert.equal(c.currentScope(), scope);
      });
      assert.equal(c.currentScope(), cur.join("/"), "leaving a frame restores the parent's scope");
    }),
  );
}

test("nested concurrent scopes agree with the oracle (seeded property)", async () => {
  const c = new OrcrClient(new Transport(srv.socket), { env: {}, autoStart: false });
  const stats = { frames: 0, errors: 0 };
  for (let seed = 1; seed <= 60; seed++) {
    await explore(c, mulberry32(seed), [], 0, stats);
    assert.equal(c.currentScope(), "");
  }
  assert.ok(stats.frames > 300, `${stats.frames} frames explored`);
  assert.ok(stats.errors > 10, `${stats.errors} refused fragments explored`);
});

test("an agent's environment is the base scope; a loop run's is its whole path", async () => {
  const agent = new OrcrClient(new Transport(srv.socket), {
    env: { ORCR_ID: "a-1", ORCR_PATH: "lead/boss", ORCR_AGENT_DATA_DIR: "/d" },
    autoStart: false,
  });
  assert.equal(agent.currentScope(), "lead");
  await agent.scope("sub", async (s) => assert.equal(s, "lead/sub"));
  const run = new OrcrClient(new Transport(srv.socket), { env: { ORCR_ID: "r-1", ORCR_PATH: "nightly/rabcde", ORCR_LOOP_DATA_DIR: "/d" }, autoStart: false });
  assert.equal((await run.agent.run({ name: "w" })).path, "nightly/rabcde/w");
  assert.deepEqual(((await run.agent.wait()) as { echo?: string[] }).echo, ["/nightly/rabcde/**"]);
});

test("composeScope", () => {
  assert.equal(composeScope("", "a"), "a");
  assert.equal(composeScope("a", "b/c"), "a/b/c");
  assert.equal(composeScope("a/b", "/c"), "c");
  assert.match(composeScope("a", "w_{rand}"), /^a\/w_[a-z0-9]{5}$/);
  assert.equal(composeScope("a", "{rand}", () => "zzzzz"), "a/zzzzz");
  for (const [cur, frag, reason] of [
    ["", "", "empty_path"],
    ["a", "/", "empty_path"],
    ["a", "B", "invalid_segment"],
    ["a", "b/", "invalid_segment"],
    ["a/b/c/d/e/f/g/h", "i", "path_too_deep"],
  ]) {
    assert.throws(() => composeScope(cur, frag), (e: unknown) => e instanceof InvalidRequest && e.reason === reason, `${cur} + ${frag}`);
  }
});
