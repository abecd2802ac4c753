// Shared by the live tests: they run against a real orcr server (auto-started by the SDK),
// the herdr stand-in and the mock provider, set up by tests/tssdk_test.go through
// ORCR_HOME, ORCR_BIN, ORCR_HERDR_BIN, ORCR_ALLOW_MOCK_PROVIDER and ORCR_MOCK_AGENT_BIN.
// They import the built package (dist/), which is what the orcr binary ships.

import assert from "node:assert/strict";

import { orcr } from "../../dist/index.js";

const missing = ["ORCR_HOME", "ORCR_BIN", "ORCR_MOCK_AGENT_BIN"].filter((k) => !process.env[k]);

/** skip is the reason to skip the live tests, or false when they can run. */
export const skip: string | false = missing.length ? `needs ${missing.join(", ")} (run by tests/tssdk_test.go)` : false;

/** The mock provider; prompts carry its directives (`say=<word>` → "<word>\nDONE"). */
export const mock = "mock";

/** until polls cond every 50 ms until it holds, failing after ms. */
export async function until(what: string, cond: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** noneLeft kills everything under root and checks that no live agent is left there. */
export async function noneLeft(root: string): Promise<void> {
  const pattern = `/${root}/**`;
  if ((await orcr.agent.ls({ pattern })).length > 0) await orcr.agent.kill(pattern, { force: true });
  assert.deepEqual(
    (await orcr.agent.ls({ pattern })).map((a) => `${a.path} ${a.status}`),
    [],
    `live agents left under ${root}`,
  );
}
