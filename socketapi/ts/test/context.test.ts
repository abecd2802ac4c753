// context.fromEnv: agent, loop run or root, from the ORCR_* variables (docs/cli.md §7.3).

import assert from "node:assert/strict";
import { test } from "node:test";

import { fromEnv, loopNameFrom, orcr, OrcrClient, Transport } from "../src/index.js";

test("an agent: scope is its path without its name, parent and loop when set", () => {
  const env = {
    ORCR_ID: "a-1",
    ORCR_PATH: "review/fanout/file_1",
    ORCR_AGENT_DATA_DIR: "/h/data/review/fanout/file_1/a-1",
    ORCR_PARENT_ID: "p-1",
    ORCR_PARENT_PATH: "review/lead",
  };
  assert.deepEqual(fromEnv(env), {
    kind: "agent",
    id: "a-1",
    path: "review/fanout/file_1",
    scope: "review/fanout",
    dataDir: "/h/data/review/fanout/file_1/a-1",
    parent: { id: "p-1", path: "review/lead" },
  });
  const inLoop = fromEnv({ ORCR_ID: "a-2", ORCR_PATH: "nightly/r82c9s/fix", ORCR_AGENT_DATA_DIR: "/d", ORCR_LOOP_DATA_DIR: "/h/data/nightly" });
  assert.equal(inLoop.kind, "agent");
  assert.equal(inLoop.scope, "nightly/r82c9s");
  assert.equal(inLoop.parent, undefined);
  assert.deepEqual(inLoop.loop, { name: "nightly", runId: "r82c9s", path: "nightly/r82c9s", dataDir: "/h/data/nightly" });
  assert.equal(fromEnv({ ORCR_ID: "a", ORCR_PATH: "solo", ORCR_AGENT_DATA_DIR: "/d" }).scope, "");
});

test("a loop run: no agent data dir; the scope is the whole run path", () => {
  const ctx = fromEnv({ ORCR_ID: "run-1", ORCR_PATH: "nightly/r82c9s", ORCR_LOOP_DATA_DIR: "/h/data/nightly", ORCR_PARENT_ID: "ignored" });
  assert.deepEqual(ctx, {
    kind: "loopRun",
    id: "run-1",
    path: "nightly/r82c9s",
    scope: "nightly/r82c9s",
    dataDir: "/h/data/nightly/r82c9s",
    loop: { name: "nightly", runId: "r82c9s", path: "nightly/r82c9s", dataDir: "/h/data/nightly" },
  });
});

test("anything else is root; empty values count as unset", () => {
  for (const env of [
    {},
    { ORCR_ID: "a" },
    { ORCR_PATH: "x/y" },
    { ORCR_ID: "a", ORCR_PATH: "x/y" },
    { ORCR_ID: "", ORCR_PATH: "x/y", ORCR_AGENT_DATA_DIR: "/d" },
    { ORCR_ID: "a", ORCR_PATH: "x/y", ORCR_AGENT_DATA_DIR: "", ORCR_LOOP_DATA_DIR: "" },
  ]) {
    assert.deepEqual(fromEnv(env), { kind: "root" }, JSON.stringify(env));
  }
});

test("orcr.context.fromEnv reads the client's environment unless given one", () => {
  const c = new OrcrClient(new Transport("/nonexistent/orcr.sock"), { env: { ORCR_ID: "r", ORCR_PATH: "l/r1", ORCR_LOOP_DATA_DIR: "/d/l" } });
  assert.equal(c.context.fromEnv().kind, "loopRun");
  assert.equal(c.context.fromEnv({}).kind, "root");
  assert.equal(c.currentScope(), "l/r1");
  assert.equal(typeof orcr.context.fromEnv, "function");
});

test("loopNameFrom is the first segment", () => {
  assert.equal(loopNameFrom("nightly/r82c9s/fix"), "nightly");
  assert.equal(loopNameFrom("/nightly/r82c9s"), "nightly");
  assert.equal(loopNameFrom("solo"), "solo");
  assert.equal(orcr.loopNameFrom("a/b"), "a");
});
