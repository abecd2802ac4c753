// orcr.agent.prepareAttach against the real server: the lease, its command, heartbeat and
// release (attach.run() needs a terminal and is not run here).

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { AttachHandle, orcr, StateConflict } from "../../dist/index.js";
import { mock, noneLeft, skip } from "./live.js";

const root = "sdk_attach";

describe("attach", { skip, timeout: 120_000 }, () => {
  after(() => noneLeft(root));

  test("prepare, heartbeat, release", async () => {
    const h = await orcr.agent.run({ path: `${root}/w`, agent: mock, prompt: "say=x", gc: "never" });
    await h.wait();
    const a = await orcr.agent.prepareAttach(`${root}/w`);
    assert.ok(a instanceof AttachHandle);
    assert.equal(a.uuid, h.uuid);
    assert.equal(a.path, h.path);
    assert.equal(a.takeover, false);
    assert.match(a.leaseId, /^[0-9a-f-]{36}$/);
    assert.ok(a.ttlMs !== undefined && a.ttlMs > 0);
    assert.equal(a.command[0], process.env.ORCR_HERDR_BIN);
    assert.ok(a.command.includes("attach"), a.command.join(" "));
    assert.equal(await a.heartbeat(), true);
    assert.equal(await a.release(), true);
    assert.equal(await a.heartbeat(), false, "a released lease is gone");
    assert.equal(await a.release(), false);
    const t = await orcr.agent.prepareAttach(h.uuid, { takeover: true });
    assert.equal(t.takeover, true);
    assert.equal(t.command.at(-1), "--takeover");
    await t.release();
    await h.kill();
    await assert.rejects(orcr.agent.prepareAttach(h.uuid), (e: unknown) => e instanceof StateConflict);
  });
});
