// The generated layer: src/generated.ts is what codegen makes of the schema (the golden copy
// the Go tests keep current), the type mapping, and --check's exit codes.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { tempDir } from "./tmp.js";

import { camel, generate, pascal, tsType, type SchemaDoc } from "../scripts/codegen.js";
import { EVENT_KINDS, GeneratedClient, PROTOCOL_METHODS, STREAMING_METHODS } from "../src/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const golden = join(root, "..", "api", "testdata", "schema.golden.json");
const doc = JSON.parse(readFileSync(golden, "utf8")) as SchemaDoc;

test("src/generated.ts is what codegen makes of socketapi/api/testdata/schema.golden.json", () => {
  const committed = readFileSync(join(root, "src", "generated.ts"), "utf8");
  assert.equal(committed.trim(), generate(doc).trim(), "stale: run `npm run codegen` (or `npx tsx scripts/codegen.ts --schema ../api/testdata/schema.golden.json`)");
});

test("the lists follow the schema", () => {
  assert.deepEqual([...PROTOCOL_METHODS], Object.keys(doc.methods).sort());
  assert.deepEqual(
    [...STREAMING_METHODS],
    Object.keys(doc.methods)
      .filter((m) => doc.methods[m].streaming)
      .sort(),
  );
  assert.deepEqual([...EVENT_KINDS], Object.keys(doc.events ?? {}).sort());
  for (const m of PROTOCOL_METHODS) {
    assert.equal(typeof (GeneratedClient.prototype as unknown as Record<string, unknown>)[camel(m)], "function", m);
  }
});

test("names", () => {
  assert.equal(pascal("loop.run.start"), "LoopRunStart");
  assert.equal(camel("loop.run.start"), "loopRunStart");
  assert.equal(camel("agent.attach.prepare"), "agentAttachPrepare");
  assert.equal(pascal("loop_run.started"), "LoopRunStarted");
  assert.equal(camel("server.handshake"), "serverHandshake");
});

test("the type mapping", () => {
  assert.equal(tsType({ type: "string" }), "string");
  assert.equal(tsType({ type: "integer" }), "number");
  assert.equal(tsType({ type: "number" }), "number");
  assert.equal(tsType({ type: "boolean" }), "boolean");
  assert.equal(tsType({ type: ["string", "null"] }), "string | null");
  assert.equal(tsType({ type: "array", items: { type: "string" } }), "string[]");
  assert.equal(tsType({ type: "array", items: { type: ["integer", "null"] } }), "(number | null)[]");
  assert.equal(tsType({ type: "object" }), "Record<string, unknown>");
  assert.equal(tsType({ type: "object", additionalProperties: true }), "Record<string, unknown>");
  assert.equal(tsType({ type: "object", additionalProperties: { type: "integer" } }), "Record<string, number>");
  assert.equal(tsType({ type: "object", properties: { b: { type: "boolean" }, a: { type: "string", description: "A." } } }), [
    "{",
    "  /** A. */",
    "  a?: string;",
    "  b?: boolean;",
    "  [key: string]: unknown;",
    "}",
  ].join("\n"));
  assert.equal(tsType({}), "unknown");
  assert.equal(tsType({ type: ["string", "integer"] }), "unknown");
  assert.equal(tsType(undefined), "unknown");
});

test("a method without properties gets an empty open interface; comments are escaped", () => {
  const out = generate({ methods: { "x.y": { summary: "do */ things", streaming: false, params: { type: "object" }, result: { type: "object" } } } });
  assert.match(out, /export interface XYParams \{\n {2}\[key: string\]: unknown;\n\}/);
  assert.match(out, /do \*\\\/ things/);
  assert.match(out, /xY\(params: XYParams = \{\}\): Promise<XYResult>/);
});

test("--check exits 0 when current and 1 when stale", () => {
  const dir = tempDir();
  const out = join(dir, "generated.ts");
  writeFileSync(out, generate(doc));
  const script = join(root, "scripts", "codegen.ts");
  const run = (schema: string) =>
    spawnSync(process.execPath, ["--import", "tsx", script, "--check", "--schema", schema, "--out", out], { cwd: root, encoding: "utf8" });
  assert.equal(run(golden).status, 0);
  const changed = structuredClone(doc);
  changed.methods["agent.ls"].summary = "something else";
  writeFileSync(join(dir, "changed.json"), JSON.stringify(changed));
  const stale = run(join(dir, "changed.json"));
  assert.equal(stale.status, 1, stale.stderr);
  assert.match(stale.stderr, /stale/);
});
