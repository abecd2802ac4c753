// orcr.watch against the real server: the snapshot, then every event after it, and the
// client-side filters.

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { orcr, Watch, type StreamEvent } from "../../dist/index.js";
import { mock, noneLeft, skip } from "./live.js";

const root = "sdk_watch";

/** collect reads events from w until stop says so (or ms pass). */
async function collect(w: Watch, stop: (evs: StreamEvent[]) => boolean, ms = 30_000): Promise<StreamEvent[]> {
  const evs: StreamEvent[] = [];
  const timer = setTimeout(() => w.close(), ms);
  try {
    for await (const ev of w) {
      evs.push(ev);
      if (stop(evs)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return evs;
}

describe("watch", { skip, timeout: 120_000 }, () => {
  after(() => noneLeft(root));

  test("the snapshot holds what exists; the events after it show a new agent's whole turn", async () => {
    const before = await orcr.agent.run({ path: `${root}/before`, agent: mock, prompt: "say=x", gc: "never" });
    await before.wait();
    const w = await orcr.watch();
    assert.ok(w.snapshotSeq > 0);
    assert.equal(w.snapshot.snapshot_seq, w.snapshotSeq);
    assert.ok(w.snapshot.agents?.some((a) => a.uuid === before.uuid), "the earlier agent is in the snapshot");
    const h = await orcr.agent.run({ path: `${root}/new`, agent: mock, prompt: "say=watched", gc: "never" });
    const evs = await collect(w, (e) => e.some((x) => x.kind === "agent.status_changed" && x.ref_uuid === h.uuid && x.status === "idle"));
    const mine = evs.filter((e) => e.ref_uuid === h.uuid).map((e) => e.kind);
    assert.equal(mine[0], "agent.created");
    for (const k of ["queue.promoted", "agent.status_changed", "agent.turn_completed"]) assert.ok(mine.includes(k), `${k} in ${mine}`);
    assert.ok(w.lastSeq > w.snapshotSeq);
    assert.equal(w.closed, true, "leaving the loop closes the watch");
    await h.kill();
    await before.kill();
  });

  test("filters: only the matching agents, in the snapshot and in the events", async () => {
    const other = await orcr.agent.run({ path: `${root}/other/a`, agent: mock, prompt: "say=o", gc: "never" });
    await other.wait();
    const w = await orcr.watch({ pattern: `/${root}/mine/**` });
    assert.deepEqual(w.snapshot.agents, []);
    await other.send("say=noise");
    const h = await orcr.agent.run({ path: `${root}/mine/a`, agent: mock, prompt: "say=m", gc: "never" });
    const evs = await collect(w, (e) => e.some((x) => x.kind === "agent.turn_completed"));
    assert.ok(evs.length > 0);
    for (const e of evs) {
      const uuid = e.ref_uuid ?? e.uuid;
      if (uuid !== undefined) assert.equal(uuid, h.uuid, `an event of another agent passed: ${e.kind}`);
    }
    await h.kill();
    await other.kill();
  });
});
