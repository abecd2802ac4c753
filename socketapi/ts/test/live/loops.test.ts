// orcr.loop against the real server: create, ls, a manual run whose command uses the SDK
// (its context, an agent in its scope), logs, run.ls, run.stop, pause, resume, rm.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";

import { orcr } from "../../dist/index.js";
import { noneLeft, skip, until } from "./live.js";

const script = fileURLToPath(new URL("./fixtures/run.mjs", import.meta.url));

describe("loops", { skip, timeout: 180_000 }, () => {
  after(async () => {
    for (const l of await orcr.loop.ls()) if (l.name?.startsWith("sdk_loop")) await orcr.loop.rm(l.name, { killActive: true });
    await noneLeft("sdk_loop");
  });

  test("a run's command sees its context and creates agents in its scope", async () => {
    const created = await orcr.loop.create({ name: "sdk_loop", command: [process.execPath, script], cron: "0 0 1 1 *", timeout: "2m" });
    assert.equal(created.name, "sdk_loop");
    assert.equal(created.cadence, "0 0 1 1 *");
    assert.deepEqual(created.argv, [process.execPath, script]);
    assert.equal(created.cancel, "orcr loop rm sdk_loop");
    assert.deepEqual((await orcr.loop.ls()).filter((l) => l.name === "sdk_loop").map((l) => l.status), ["active"]);

    const run = await orcr.loop.run.start("sdk_loop");
    assert.match(run.runId, /^r[a-z0-9]{5}$/);
    assert.equal(run.path, `sdk_loop/${run.runId}`);
    assert.equal(run.kind, "manual");
    assert.ok(run.dataDir.endsWith(`/data/sdk_loop/${run.runId}`), run.dataDir);

    let lines: string[] = [];
    await until("the run to finish", async () => {
      lines = (await orcr.loop.logs("sdk_loop", { run: run.runId, source: "command" })).map((l) => String(l.text));
      return lines.some((l) => l.startsWith("agent "));
    }, 90_000);
    const ctx = JSON.parse(lines.find((l) => l.startsWith("context "))!.slice("context ".length));
    assert.equal(ctx.kind, "loopRun");
    assert.equal(ctx.path, run.path);
    assert.equal(ctx.scope, run.path);
    assert.equal(ctx.id, run.uuid);
    assert.deepEqual(ctx.loop, { name: "sdk_loop", runId: run.runId, path: run.path, dataDir: ctx.loop.dataDir });
    assert.ok(lines.includes(`agent ${run.path}/worker ok=true`), lines.join("\n"));
    await until("the run to end ok", async () => {
      const runs = await orcr.loop.run.ls("sdk_loop", { all: true });
      return runs.some((r) => r.run_id === run.runId && r.status === "ok");
    });
    const orcrLines = await orcr.loop.logs("sdk_loop", { source: "orcr", tail: 50 });
    assert.ok(orcrLines.length > 0, "the scheduler's events");

    assert.equal((await orcr.loop.pause("sdk_loop")).updated?.[0]?.status, "paused");
    assert.equal((await orcr.loop.resume("sdk_loop")).updated?.[0]?.status, "active");
  });

  test("run.stop stops a running run; rm removes the loops", async () => {
    // This command holds after its agent, so the run is still running when it is stopped.
    await orcr.loop.create({ name: "sdk_loop_hold", command: [process.execPath, script, "hold"], cron: "0 0 1 1 *" });
    const held = await orcr.loop.run.start("sdk_loop_hold");
    await until("the run's agent to finish", async () =>
      (await orcr.loop.logs("sdk_loop_hold", { run: held.runId, source: "command" })).some((l) => String(l.text).startsWith("agent ")),
    90_000);
    assert.equal((await orcr.loop.run.ls("sdk_loop_hold")).find((r) => r.run_id === held.runId)?.status, "running");
    const stopped = await orcr.loop.run.stop("sdk_loop_hold", { runId: held.runId });
    assert.deepEqual(stopped.stopped?.map((r) => [r.run_id, r.status]), [[held.runId, "stopped"]]);
    for (const name of ["sdk_loop", "sdk_loop_hold"]) {
      const rm = await orcr.loop.rm(name);
      assert.deepEqual(rm.removed?.map((r) => r.name), [name]);
    }
    const left = (await orcr.loop.ls()).filter((l) => l.name?.startsWith("sdk_loop"));
    assert.deepEqual(left, []);
    assert.equal((await orcr.loop.ls({ all: true })).find((l) => l.name === "sdk_loop")?.status, "ended");
  });
});
