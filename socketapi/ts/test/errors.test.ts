// Every wire code maps to its class; anything else is a ServerError (docs/protocol.md §2.3).

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  Blocked,
  EnvironmentError,
  ERROR_CODES,
  errorFromWire,
  IntegrationMissing,
  InvalidRequest,
  NotFound,
  OrcrError,
  ServerError,
  StateConflict,
  Timeout,
  TranscriptUnavailable,
} from "../src/index.js";

const table = [
  ["not_found", NotFound, 6],
  ["invalid_request", InvalidRequest, 1],
  ["state_conflict", StateConflict, 7],
  ["blocked", Blocked, 4],
  ["timeout", Timeout, 3],
  ["integration_missing", IntegrationMissing, 2],
  ["transcript_unavailable", TranscriptUnavailable, 1],
  ["environment_error", EnvironmentError, 2],
  ["server_error", ServerError, 1],
] as const;

test("every code has its class, name, message and details", () => {
  for (const [code, cls] of table) {
    const e = errorFromWire({ code, message: `m ${code}`, details: { reason: "r", cause: "c" } });
    assert.ok(e instanceof cls, code);
    assert.ok(e instanceof OrcrError && e instanceof Error, code);
    assert.equal(e.code, code);
    assert.equal(e.name, cls.name);
    assert.equal(e.message, `m ${code}`);
    assert.deepEqual(e.details, { reason: "r", cause: "c" });
    assert.equal(e.reason, "r");
    assert.equal(e.causeCode, "c");
  }
});

test("the generated ERROR_CODES are the same nine codes, in order, with their exits", () => {
  assert.deepEqual(
    ERROR_CODES.map((c) => [c.code, c.exit]),
    table.map(([code, , exit]) => [code, exit]),
  );
});

test("unknown or missing codes are ServerError server_error", () => {
  for (const wire of [{ code: "brand_new", message: "x" }, { message: "x" }, { code: 7, message: "x" }, { code: "toString", message: "x" }]) {
    const e = errorFromWire(wire);
    assert.ok(e instanceof ServerError, JSON.stringify(wire));
    assert.equal(e.code, "server_error");
    assert.equal(e.message, "x");
  }
  assert.ok(errorFromWire(undefined) instanceof ServerError);
  assert.ok(errorFromWire(null) instanceof ServerError);
});

test("a missing message is generic, details that are not an object are null", () => {
  const e = errorFromWire({ code: "not_found" });
  assert.equal(e.message, "server error");
  assert.equal(e.details, null);
  assert.equal(e.reason, undefined);
  assert.equal(errorFromWire({ code: "not_found", message: "", details: [1] }).details, null);
  assert.equal(errorFromWire({ code: "not_found", message: "m", details: "text" }).details, null);
});

test("StateConflict.forceRequired", () => {
  const forced = errorFromWire({ code: "state_conflict", message: "m", details: { reason: "force_required" } });
  assert.ok(forced instanceof StateConflict);
  assert.equal(forced.forceRequired, true);
  const other = errorFromWire({ code: "state_conflict", message: "m", details: { reason: "path_in_use" } }) as StateConflict;
  assert.equal(other.forceRequired, false);
  assert.equal((errorFromWire({ code: "state_conflict", message: "m" }) as StateConflict).forceRequired, false);
});
