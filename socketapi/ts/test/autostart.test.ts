// Auto-start against stand-in binaries (ORCR_BIN): the spawn, the start report on fd 3,
// and every way a start fails (docs/protocol.md §1.7).

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { EnvironmentError, OrcrClient, OrcrError, Transport } from "../src/index.js";

function home(): string {
  return mkdtempSync(join(tmpdir(), "osdk"));
}

function script(dir: string, name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, body);
  chmodSync(p, 0o755);
  return p;
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
  const bin = script(dir, "orcr", `#!${process.execPath}
const net = require("node:net");
const fs = require("node:fs");
fs.writeFileSync(process.env.ORCR_HOME + "/argv.json", JSON.stringify({ argv: process.argv.slice(2), home: process.env.ORCR_HOME, marker: process.env.MARKER }));
setTimeout(() => {
  const srv = net.createServer((c) => {
    let buf = "";
    c.on("data", (d) => {
      buf += d;
      for (let i; (i = buf.indexOf("\\n")) >= 0; ) {
        const req = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        const result = req.method === "server.handshake" ? { pid: process.pid, protocol: 1, ready: true } : { agents: [{ path: "started" }] };
        c.write(JSON.stringify({ id: req.id, ok: true, result }) + "\\n");
      }
    });
  });
  srv.listen(process.env.ORCR_HOME + "/orcr.sock");
  setTimeout(() => process.exit(0), 4000);
}, 300);
`);
  const c = new OrcrClient(new Transport(join(dir, "orcr.sock")), { env: { PATH: process.env.PATH, MARKER: "m1" }, bin });
  const rows = await c.agent.ls();
  assert.deepEqual(rows, [{ path: "started" }]);
  const seen = JSON.parse(readFileSync(join(dir, "argv.json"), "utf8"));
  assert.deepEqual(seen, { argv: ["server", "start", "--foreground", "--start-report-fd=3"], home: dir, marker: "m1" });
  await c.agent.ls();
});
