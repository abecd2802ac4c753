// The agent helpers against the real server: run (name, path, scope), handles, ask,
// pattern wait/ls/kill, scopes with killOnThrow, the context inside an agent, errors.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";

import {
  AgentHandle,
  fromEnv,
  IntegrationMissing,
  InvalidRequest,
  NotFound,
  orcr,
  OrcrClient,
  StateConflict,
  type LogEntry,
} from "../../dist/index.js";
import { mock, noneLeft, skip } from "./live.js";

const root = "sdk_agents";

describe("agents", { skip, timeout: 180_000 }, () => {
  after(() => noneLeft(root));

  test("run by name in a scope; handle wait, lastResponse, logs, send, kill", async () => {
    await orcr.scope(root, async (scope) => {
      assert.equal(scope, root);
      const h = await orcr.agent.run({ name: "one", agent: mock, prompt: "say=hello", gc: "never" });
      assert.ok(h instanceof AgentHandle);
      assert.equal(h.path, `${root}/one`);
      assert.equal(h.name, "one");
      assert.match(h.uuid, /^[0-9a-f-]{36}$/);
      assert.ok(h.dataDir.endsWith(`/data/${root}/one/${h.uuid}`), h.dataDir);
      const w = await h.wait({ timeout: "60s" });
      assert.equal(w.all_ok, true, JSON.stringify(w));
      assert.equal(w.targets?.[0]?.reason, "turn_complete");
      assert.equal(await h.lastResponse(), "hello\nDONE");
      const entries = await h.logs();
      assert.deepEqual(
        entries.filter((e) => e.kind === "text").map((e) => [e.role, e.text]),
        [
          ["user", "say=hello"],
          ["assistant", "hello\nDONE"],
        ],
      );
      assert.equal((await h.logs({ tail: 1 })).length, 1);
      const sent = await h.send("say=again");
      assert.equal(sent.uuid, h.uuid);
      assert.equal(sent.input_seq, 2);
      assert.equal((await h.wait()).all_ok, true);
      assert.equal(await h.lastResponse(), "again\nDONE");
      const k = await h.kill();
      assert.equal(k.all_killed, true);
      assert.deepEqual(k.killed?.map((r) => r.uuid), [h.uuid]);
      // The row is ended; the handle still reads its transcript by uuid.
      assert.equal(await h.lastResponse(), "again\nDONE");
    });
  });

  test("followLogs yields the entries as they come and ends after the agent ends", async () => {
    const h = await orcr.agent.run({ path: `/${root}/follow`, agent: mock, prompt: "say=first turn_ms=200", gc: "never" });
    const seen: LogEntry[] = [];
    const following = (async () => {
      for await (const e of h.followLogs({ intervalMs: 100 })) seen.push(e);
    })();
    await h.wait();
    await h.send("say=second");
    await h.wait();
    await h.kill();
    await following;
    assert.deepEqual(
      seen.filter((e) => e.kind === "text").map((e) => e.text),
      ["say=first turn_ms=200", "first\nDONE", "say=second", "second\nDONE"],
    );
  });

  test("ask answers the final text of a one-shot agent; a gc-immediate agent is read after its end", async () => {
    await orcr.scope(root, async () => {
      assert.equal(await orcr.ask({ name: "asker", agent: mock, prompt: "say=pong" }), "pong\nDONE");
      // gc immediate: the agent is gone, its path free again.
      assert.equal(await orcr.ask({ name: "asker", agent: mock, prompt: "say=again", timeout: "60s" }), "again\nDONE");
      // The scaffold's pattern: a gc-immediate agent, waited for, read after it ended.
      const h = await orcr.agent.run({ name: "hello", agent: mock, prompt: "say=hi", gc: "immediate" });
      const w = await h.wait();
      assert.equal(w.targets?.[0]?.reason, "completed");
      assert.equal(await h.lastResponse(), "hi\nDONE");
    });
  });

  test("paths: relative to the scope, absolute with /; pattern wait, ls and kill", async () => {
    await orcr.scope(`${root}/fan`, async () => {
      const hs = await Promise.all([1, 2, 3].map((i) => orcr.agent.run({ path: `w/n${i}`, agent: mock, prompt: `say=w${i}`, gc: "never" })));
      assert.deepEqual(hs.map((h) => h.path).sort(), [1, 2, 3].map((i) => `${root}/fan/w/n${i}`));
      const w = await orcr.agent.wait("w/*", { timeout: "60s" });
      assert.equal(w.all_ok, true);
      assert.equal(w.targets?.length, 3);
      assert.equal(w.timed_out, false);
      const rows = await orcr.agent.ls({ pattern: "**" });
      assert.deepEqual(rows.map((r) => r.path), [1, 2, 3].map((i) => `${root}/fan/w/n${i}`));
      assert.equal((await orcr.agent.ls({ pattern: "w/n2" }))[0]?.uuid, hs.find((h) => h.path.endsWith("n2"))!.uuid);
      assert.equal((await orcr.agent.ls({ pattern: "**", agent: "codex" })).length, 0);
      assert.equal((await orcr.agent.ls({ pattern: "**", status: "idle" })).length, 3);
      // An absolute path ignores the scope.
      const abs = await orcr.agent.run({ path: `/${root}/abs_x`, agent: mock });
      assert.equal(abs.path, `${root}/abs_x`);
      const killed = await orcr.agent.kill("w/*");
      assert.equal(killed.killed?.length, 3);
      assert.equal((await orcr.agent.ls({ pattern: "**" })).length, 0);
      assert.equal((await orcr.agent.ls({ pattern: "**", all: true })).length, 3);
      await abs.kill();
    });
  });

  test("a wait that runs out is a result, not an error", async () => {
    const h = await orcr.agent.run({ path: `${root}/slow`, agent: mock, prompt: "say=late turn_ms=5000", gc: "never" });
    const w = await h.wait({ timeout: "300ms" });
    assert.equal(w.timed_out, true);
    assert.equal(w.all_ok, false);
    await h.kill();
  });

  test("killOnThrow kills the scope's agents, then the error goes on", async () => {
    const boom = new Error("boom");
    await assert.rejects(
      orcr.scope(`${root}/kot`, async () => {
        await orcr.agent.run({ name: "victim", agent: mock, prompt: "say=x turn_ms=20000", gc: "never" });
        await orcr.agent.run({ path: "deeper/victim", agent: mock, gc: "never" });
        throw boom;
      }, { killOnThrow: true }),
      (e: unknown) => e === boom,
    );
    assert.deepEqual(await orcr.agent.ls({ pattern: `/${root}/kot/**` }), []);
    const ended = await orcr.agent.ls({ pattern: `/${root}/kot/**`, all: true });
    assert.deepEqual(ended.map((r) => r.status), ["ended", "ended"]);
  });

  test("inside an agent: context.fromEnv, and the children it starts are its own", async () => {
    const parent = await orcr.agent.run({ path: `${root}/team/lead`, agent: mock, prompt: "say=ready", gc: "never" });
    await parent.wait();
    const env = JSON.parse(readFileSync(join(parent.dataDir, "mock_env.json"), "utf8")) as Record<string, string>;
    const ctx = fromEnv(env);
    assert.equal(ctx.kind, "agent");
    assert.equal(ctx.id, parent.uuid);
    assert.equal(ctx.path, `${root}/team/lead`);
    assert.equal(ctx.scope, `${root}/team`);
    assert.equal(ctx.dataDir, parent.dataDir);
    // A client built from the agent's environment is that agent: relative names land in its
    // scope, and the rows it creates name it as their parent.
    const inside = new OrcrClient(undefined, { env: { ...process.env, ...env } });
    assert.equal(inside.context.fromEnv().kind, "agent");
    assert.equal(inside.currentScope(), `${root}/team`);
    const child = await inside.agent.run({ name: "helper", agent: mock, prompt: "say=hi", gc: "never" });
    assert.equal(child.path, `${root}/team/helper`);
    const [row] = await orcr.agent.ls({ pattern: child.uuid });
    assert.equal(row.parent_id, parent.uuid);
    assert.equal(row.parent_path, `${root}/team/lead`);
    await inside.agent.wait();
    const killed = await inside.agent.kill();
    assert.equal(killed.killed?.length, 2);
  });

  test("refusals keep their classes", async () => {
    const h = await orcr.agent.run({ path: `${root}/taken`, agent: mock, gc: "never" });
    await assert.rejects(orcr.agent.run({ path: `${root}/taken`, agent: mock }), (e: unknown) => e instanceof StateConflict && e.reason === "path_in_use");
    await assert.rejects(orcr.agent.run({ path: `${root}/x`, agent: "no_such_provider" }), IntegrationMissing);
    await assert.rejects(orcr.agent.run({ path: `${root}/Bad` }), (e: unknown) => e instanceof InvalidRequest && e.reason === "invalid_segment");
    await assert.rejects(orcr.agent.run({ path: `${root}/x`, agent: mock, gc: "sometimes" as "never" }), (e: unknown) => e instanceof InvalidRequest && e.reason === "invalid_gc");
    await assert.rejects(orcr.agent.wait(`/${root}/nothing/*`), NotFound);
    await assert.rejects(orcr.agent.prepareAttach(`/${root}/nothing`), NotFound);
    await assert.rejects(orcr.agent.kill(), (e: unknown) => e instanceof InvalidRequest && e.reason === "no_scope");
    await h.kill();
  });
});
