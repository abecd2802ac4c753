// The path grammar (docs/cli.md §3), case for case with the server's rules in
// store/agentpath (creation_test.go, pattern_test.go).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  expandRand,
  InvalidRequest,
  isPattern,
  nameOf,
  Pattern,
  resolveCreate,
  resolveSelector,
  scopeOfAgent,
  validatePath,
  validSegment,
} from "../src/index.js";
import { mulberry32, pick } from "./fakeserver.js";

/** fixedRand hands out the given tokens in order. */
function fixedRand(...tokens: string[]): () => string {
  let i = 0;
  return () => tokens[i++];
}

function reasonOf(fn: () => unknown): { reason?: string; details?: Record<string, unknown> | null } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InvalidRequest, `want InvalidRequest, got ${String(e)}`);
    return { reason: e.reason, details: e.details };
  }
  return {};
}

describe("resolveCreate", () => {
  const seg64 = "a".repeat(64);
  const long = "abcdefghij/".repeat(23) + "abc"; // 256 characters, 24 segments
  const nine = "a/b/c/d/e/f/g/h/i";
  const s64x3 = ["s".repeat(64), "s".repeat(64), "s".repeat(64)].join("/");
  type Case = { name: string; scope?: string; nm?: string; path?: string; want?: string; reason?: string; details?: Record<string, unknown> };
  const cases: Case[] = [
    { name: "neither", reason: "name_required" },
    { name: "both", nm: "a", path: "b", reason: "name_and_path" },
    { name: "name at root", nm: "worker", want: "/worker" },
    { name: "name in scope", scope: "review", nm: "child", want: "/review/child" },
    { name: "name with slash", scope: "review", nm: "a/b", reason: "invalid_name" },
    { name: "name with leading slash", nm: "/abs", reason: "invalid_name" },
    { name: "name trailing slash", nm: "a/", reason: "invalid_name" },
    { name: "relative path joins scope", scope: "nightly/r82c9s", path: "a/b", want: "/nightly/r82c9s/a/b" },
    { name: "relative path no scope", path: "a/b", want: "/a/b" },
    { name: "absolute path ignores scope", scope: "review", path: "/top/x", want: "/top/x" },
    { name: "absolute nests inside self", scope: "review", path: "/review/worker/child", want: "/review/worker/child" },
    { name: "only slash", path: "/", reason: "empty_path" },
    { name: "only slash with scope", scope: "review", path: "/", reason: "empty_path" },
    { name: "double leading slash", path: "//a", reason: "invalid_segment" },
    { name: "trailing slash", path: "a/", reason: "invalid_segment" },
    { name: "empty inner segment", path: "a//b", reason: "invalid_segment" },
    { name: "uppercase", nm: "Worker", reason: "invalid_segment" },
    { name: "dash", nm: "my-worker", reason: "invalid_segment" },
    { name: "dot", path: "a/b.c", reason: "invalid_segment" },
    { name: "space", nm: "a b", reason: "invalid_segment" },
    { name: "non-ascii", nm: "é", reason: "invalid_segment" },
    { name: "star is not a name", path: "a/*", reason: "invalid_segment" },
    { name: "underscore and digits", path: "a_1/_/9", want: "/a_1/_/9" },
    { name: "segment 64", nm: seg64, want: "/" + seg64 },
    { name: "segment 65", nm: seg64 + "a", reason: "invalid_segment" },
    { name: "invalid scope segment", scope: "Bad", nm: "x", reason: "invalid_segment" },
    { name: "256 chars too deep", path: long, reason: "path_too_deep", details: { path: long, segments: 24 } },
    { name: "257 chars", path: long + "d", reason: "path_too_long", details: { path: long + "d", len: 257 } },
    { name: "length before depth and segments", path: "A/".repeat(200), reason: "path_too_long", details: { len: 400 } },
    { name: "depth before segments", path: "A/b/c/d/e/f/g/h/i", reason: "path_too_deep", details: { segments: 9 } },
    { name: "8 segments", path: "a/b/c/d/e/f/g/h", want: "/a/b/c/d/e/f/g/h" },
    { name: "9 segments", path: nine, reason: "path_too_deep", details: { path: nine, segments: 9 } },
    { name: "depth counts scope", scope: "a/b/c/d/e/f/g", path: "h/i", reason: "path_too_deep", details: { path: nine, segments: 9 } },
    { name: "length counts scope", scope: s64x3, nm: seg64, reason: "path_too_long", details: { len: 259 } },
    { name: "reserved idle", nm: "idle", reason: "reserved_name", details: { name: "idle" } },
    { name: "reserved unmanaged path", path: "unmanaged/x/y", reason: "reserved_name", details: { name: "unmanaged" } },
    { name: "reserved absolute", scope: "review", path: "/idle/x", reason: "reserved_name", details: { name: "idle" } },
    { name: "reserved via scope", scope: "idle", nm: "x", reason: "reserved_name", details: { name: "idle" } },
    { name: "reserved only at level 1", scope: "review", nm: "idle", want: "/review/idle" },
    { name: "unmanaged deeper ok", path: "a/unmanaged", want: "/a/unmanaged" },
    { name: "idle prefix is not reserved", nm: "idler", want: "/idler" },
    { name: "grammar before reserved", path: "idle/B", reason: "invalid_segment" },
    { name: "rand in name", scope: "fan", nm: "w_{rand}", want: "/fan/w_r0001" },
    { name: "rand twice independent", path: "{rand}/x_{rand}", want: "/r0001/x_r0002" },
    { name: "rand does not touch scope", scope: "a", nm: "{rand}{rand}", want: "/a/r0001r0002" },
    { name: "rand before name check", nm: "{rand}/x", reason: "invalid_name" },
    { name: "rand placeholder broken", nm: "{rand", reason: "invalid_segment" },
    { name: "rand reserved", path: "idle{rand}", want: "/idler0001" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const run = () => resolveCreate({ name: c.nm, path: c.path }, c.scope ?? "", fixedRand("r0001", "r0002"));
      if (c.want !== undefined) {
        assert.equal(run(), c.want);
        return;
      }
      const got = reasonOf(run);
      assert.equal(got.reason, c.reason);
      for (const [k, v] of Object.entries(c.details ?? {})) assert.deepEqual(got.details?.[k], v, `details.${k}`);
    });
  }

  test("default {rand} draws independent [a-z0-9]{5} tokens", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const m = /^\/fan\/w_([a-z0-9]{5})_([a-z0-9]{5})$/.exec(resolveCreate({ name: "w_{rand}_{rand}" }, "fan"));
      assert.ok(m, "shape");
      seen.add(m[1]);
      seen.add(m[2]);
    }
    assert.ok(seen.size >= 90, `${seen.size} distinct tokens of 100`);
  });
});

describe("validatePath and validSegment", () => {
  test("segments", () => {
    for (const s of ["a", "a_b", "0", "_", "a".repeat(64)]) assert.ok(validSegment(s), s);
    for (const s of ["", "A", "a-b", "a.b", "a b", "a/b", "a".repeat(65), "*", "é"]) assert.ok(!validSegment(s), s);
  });
  test("order: empty, length, depth, segment", () => {
    assert.equal(reasonOf(() => validatePath("")).reason, "empty_path");
    assert.equal(reasonOf(() => validatePath("X/".repeat(130))).reason, "path_too_long");
    assert.equal(reasonOf(() => validatePath("X/".repeat(9) + "a")).reason, "path_too_deep");
    assert.equal(reasonOf(() => validatePath("a/X")).reason, "invalid_segment");
    assert.equal(reasonOf(() => validatePath("/a")).reason, "invalid_segment");
    assert.equal(validatePath("a/b"), "a/b");
  });
});

describe("selectors", () => {
  const cases: { name: string; scope?: string; sel: string; want?: string; reason?: string }[] = [
    { name: "empty", sel: "", reason: "empty_selector" },
    { name: "empty with scope", scope: "review", sel: "", reason: "empty_selector" },
    { name: "slash only", sel: "/", reason: "empty_pattern" },
    { name: "slash only with scope", scope: "review", sel: "/", reason: "empty_pattern" },
    { name: "partial star", sel: "phase_*", reason: "invalid_pattern" },
    { name: "star prefix", sel: "review/*x", reason: "invalid_pattern" },
    { name: "triple star", sel: "***", reason: "invalid_pattern" },
    { name: "uppercase", sel: "Review/*", reason: "invalid_segment" },
    { name: "empty segment", sel: "a//b", reason: "invalid_segment" },
    { name: "trailing slash", sel: "a/", reason: "invalid_segment" },
    { name: "rand not expanded", sel: "x_{rand}", reason: "invalid_segment" },
    { name: "segment too long", sel: "a".repeat(65), reason: "invalid_segment" },
    { name: "relative joins scope", scope: "review", sel: "*", want: "/review/*" },
    { name: "absolute ignores scope", scope: "review", sel: "/x/**", want: "/x/**" },
    { name: "no scope", sel: "**", want: "/**" },
    { name: "depth not enforced", sel: "a/b/c/d/e/f/g/h/i/j", want: "/a/b/c/d/e/f/g/h/i/j" },
    { name: "reserved names selectable", sel: "unmanaged/**", want: "/unmanaged/**" },
    { name: "uuid unchanged", scope: "review", sel: "0192f0a1-7c2b", want: "0192f0a1-7c2b" },
    { name: "uppercase hex prefix unchanged", scope: "review", sel: "0192F0A1", want: "0192F0A1" },
    { name: "lowercase hex is a path", scope: "review", sel: "deadbeef", want: "/review/deadbeef" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      if (c.want !== undefined) assert.equal(resolveSelector(c.sel, c.scope ?? ""), c.want);
      else assert.equal(reasonOf(() => resolveSelector(c.sel, c.scope ?? "")).reason, c.reason);
    });
  }

  test("isPattern, nameOf, scopeOfAgent", () => {
    for (const [s, want] of [["a/*", true], ["**", true], ["/x/**/y", true], ["phase_*", false], ["a/b", false], ["***", false]] as const) {
      assert.equal(isPattern(s), want, s);
    }
    assert.equal(nameOf("review/fanout/file_1"), "file_1");
    assert.equal(nameOf("/solo"), "solo");
    assert.equal(scopeOfAgent("review/fanout/file_1"), "review/fanout");
    assert.equal(scopeOfAgent("solo"), "");
  });

  test("expandRand leaves text without a placeholder alone", () => {
    assert.equal(expandRand("plain"), "plain");
    assert.match(expandRand("{rand}"), /^[a-z0-9]{5}$/);
  });
});

describe("Pattern.match", () => {
  const table: [string, string, boolean][] = [
    ["review/*", "review/a", true],
    ["review/*", "review", false],
    ["review/*", "review/a/b", false],
    ["review/*", "reviewer/x", false],
    ["review/**", "review/a", true],
    ["review/**", "review/a/b/c", true],
    ["review/**", "review", false],
    ["review/**", "reviewer/a", false],
    ["a/**/b", "a/b", false],
    ["a/**/b", "a/x/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a/**/b", "a/x/y/c", false],
    ["a/**/b", "a/b/b", true],
    ["**", "a", true],
    ["**", "a/b/c", true],
    ["*", "a", true],
    ["*", "a/b", false],
    ["*/*", "a/b", true],
    ["**/**", "a", false],
    ["**/**", "a/b", true],
    ["**/x", "x", false],
    ["**/x", "a/x", true],
    ["*/**", "a", false],
    ["a_b", "a_b", true],
    ["a_b", "axb", false],
    ["a_b/*", "axb/c", false],
    ["a/b", "a_b", false],
    ["a/b", "a/b/c", false],
    ["a/b", "a", false],
    ["**", "", false],
    ["*", "", false],
    ["**", "a//b", false],
    ["*/*", "a/", false],
  ];
  for (const [pat, path, want] of table) {
    test(`${pat} ~ ${JSON.stringify(path)} is ${want}`, () => assert.equal(new Pattern(pat).match(path), want));
  }

  // The oracle: segment-wise backtracking, obviously right and exponential.
  function oracle(pat: string[], path: string[]): boolean {
    if (pat.length === 0) return path.length === 0;
    const [head, ...rest] = pat;
    if (head === "**") {
      for (let k = 1; k <= path.length; k++) if (oracle(rest, path.slice(k))) return true;
      return false;
    }
    if (path.length === 0) return false;
    return (head === "*" || head === path[0]) && oracle(rest, path.slice(1));
  }

  test("agrees with segment-wise backtracking (seeded property)", () => {
    const rnd = mulberry32(0x5eed);
    const segs = ["a", "b", "_", "ab", "a_b", "ba"];
    for (let i = 0; i < 3000; i++) {
      const pat = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => pick(rnd, [...segs, "*", "**", "*", "**"]));
      const path = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(rnd, segs));
      const got = new Pattern(pat.join("/")).match(path.join("/"));
      assert.equal(got, oracle(pat, path), `${pat.join("/")} ~ ${path.join("/")}`);
    }
  });
});
