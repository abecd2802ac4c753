// Auto-start against stand-in binaries (ORCR_BIN): the spawn, the start report on fd 3,
// and every way a start fails (docs/protocol.md §1.7).

import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "./tmp.js";

import { EnvironmentError, OrcrClient, OrcrError, Transport } from "../src/index.js";

function home(): string {
  return tempDir();
}

function script(dir: string, name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, body);
  chmodSync(p, 0o755);
  return p;
}

/**
 * standIn is the text of a stand-in orcr: a Node program that runs setup, then (after
 * delayMs) serves its ORCR_HOME socket, answering each request with what the expression
 * `answer` makes of `req` and running `after` once it has answered; it exits after 5 s.
 */
function standIn(opts: { setup?: string; answer: string; after?: string; delayMs?: number }): string {
  return `#!${process.execPath}
const net = require("node:net");
const fs = require("node:fs");
const sock = process.env.ORCR_HOME + "/orcr.sock";
${opts.setup ?? ""}
setTimeout(() => {
  fs.rmSync(sock, { force: true });
  net.createServer((c) => {
    let buf = "";
    c.on("data", (d) => {
      buf += d;
      for (let i; (i = buf.indexOf("\\n")) >= 0; ) {
        const req = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        c.end(JSON.stringify({ id: req.id, ok: true, result: ${opts.answer} }) + "\\n");
        ${opts.after ?? ""}
      }
    });
  }).listen(sock);
  setTimeout(() => process.exit(0), 5000);
}, ${opts.delayMs ?? 0});
`;
}

async function startError(bin: string, dir: string): Promise<{ e: OrcrError; ms: number }> {
  const c = new OrcrClient(new Transport(join(dir, "orcr.sock")), { env: { PATH: process.env.PATH }, bin });
  const t0 = Date.now();
  try {
    await c.agent.ls();
  } catch (e) {
    assert.ok(e instanceof OrcrError, String(e));
    return { e, ms: Date.now() - t0 };
  }
  assert.fail("the call succeeded");
}

test("a binary that cannot run is server_start_failed", async () => {
  const dir = home();
  const { e } = await startError(join(dir, "no-such-orcr"), dir);
  assert.ok(e instanceof EnvironmentError);
  assert.equal(e.causeCode, "server_start_failed");
  assert.match(e.message, /ORCR_BIN/);
});

test("the error a server reports on fd 3 is the call's error, at once", async () => {
  const dir = home();
  const bin = script(dir, "orcr", `#!/bin/sh
echo '{"code":"environment_error","message":"socket path too long","details":{"cause":"socket_path_too_long","len":300}}' >&3
exit 2
`);
  const { e, ms } = await startError(bin, dir);
  assert.equal(e.causeCode, "socket_path_too_long");
  assert.equal(e.details?.len, 300);
  assert.ok(ms < 5000, `took ${ms} ms`);
});

test("a server that dies without a report is server_start_failed, naming how", async () => {
  const dir = home();
  const { e, ms } = await startError(script(dir, "orcr", "#!/bin/sh\nexit 3\n"), dir);
  assert.equal(e.causeCode, "server_start_failed");
  assert.match(e.message, /exit status 3/);
  assert.ok(ms < 5000, `took ${ms} ms`);
});

test("the spawned server gets 'server start --foreground', ORCR_HOME, and is waited for; success is memoized", async () => {
  const dir = home();
  const bin = script(
    dir,
    "orcr",
    standIn({
      setup: `fs.writeFileSync(process.env.ORCR_HOME + "/argv.json", JSON.stringify({ argv: process.argv.slice(2), home: process.env.ORCR_HOME, marker: process.env.MARKER }));`,
      answer: `req.method === "server.handshake" ? { pid: process.pid, protocol: 1, ready: true } : { agents: [{ path: "started" }] }`,
      delayMs: 300,
    }),
  );
  const c = new OrcrClient(new Transport(join(dir, "orcr.sock")), { env: { PATH: process.env.PATH, MARKER: "m1" }, bin });
  const rows = await c.agent.ls();
  assert.deepEqual(rows, [{ path: "started" }]);
  const seen = JSON.parse(readFileSync(join(dir, "argv.json"), "utf8"));
  assert.deepEqual(seen, { argv: ["server", "start", "--foreground", "--start-report-fd=3"], home: dir, marker: "m1" });
  await c.agent.ls();
});

test("a server that went away is started again by the next call", async () => {
  const dir = home();
  // Each server answers one agent.ls, then dies, leaving its socket file behind.
  const bin = script(
    dir,
    "orcr",
    standIn({
      setup: `fs.appendFileSync(process.env.ORCR_HOME + "/starts", "x");`,
      answer: `req.method === "server.handshake" ? { pid: process.pid, protocol: 1 } : { agents: [] }`,
      after: `if (req.method !== "server.handshake") setTimeout(() => process.exit(0), 20);`,
    }),
  );
  const c = new OrcrClient(new Transport(join(dir, "orcr.sock")), { env: { PATH: process.env.PATH }, bin });
  await c.agent.ls();
  await new Promise((r) => setTimeout(r, 200));
  await c.agent.ls();
  assert.equal(readFileSync(join(dir, "starts"), "utf8"), "xx");
  // Without auto-start the failure is the call's.
  await new Promise((r) => setTimeout(r, 200));
  const plain = new OrcrClient(new Transport(join(dir, "orcr.sock")), { autoStart: false });
  await assert.rejects(plain.agent.ls(), (e: unknown) => e instanceof EnvironmentError && e.causeCode === "server_unreachable");
});
