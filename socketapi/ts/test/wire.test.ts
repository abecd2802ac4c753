// The transport against fake servers: framing (docs/protocol.md §2.1), the 16 MiB limit,
// broken replies, timeouts, string ids, streams and the handshake's protocol check.

import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { tempDir } from "./tmp.js";

import {
  EnvironmentError,
  FrameSplitter,
  InvalidRequest,
  MAX_FRAME_BYTES,
  NotFound,
  OrcrClient,
  OrcrError,
  StateConflict,
  Transport,
} from "../src/index.js";
import { fakeServer, handshakeAnswer, type FakeServer } from "./fakeserver.js";

const servers: FakeServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(handlers: Parameters<typeof fakeServer>[0]): Promise<FakeServer> {
  const s = await fakeServer(handlers);
  servers.push(s);
  return s;
}

/** rejects asserts that p rejects with an OrcrError of class cls whose cause (or reason) is want. */
async function rejectsWith(p: Promise<unknown>, cls: abstract new (...a: never[]) => OrcrError, want?: string): Promise<OrcrError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof cls, `want ${cls.name}, got ${String(e)}`);
    if (want !== undefined) assert.equal(e.causeCode ?? e.reason, want, e.message);
    return e;
  }
  assert.fail("did not reject");
}

/** rawServer answers every connection by writing chunks (after reading the request line). */
function rawServer(write: (conn: import("node:net").Socket) => void): Promise<FakeServer> {
  return serve({
    onConnection: (conn) => {
      let got = "";
      conn.setEncoding("utf8");
      conn.on("data", (d: string) => {
        const first = got === "";
        got += d;
        if (first && got.includes("\n")) write(conn);
      });
    },
  });
}

describe("requests", () => {
  test("one frame per request: protocol 1, a fresh string id, the method and params", async () => {
    const s = await serve({ onRequest: (req) => ({ result: { echo: req.params } }) });
    const t = new Transport(s.socket);
    assert.deepEqual(await t.request("agent.ls", { all: true }), { echo: { all: true } });
    assert.deepEqual(await t.request("agent.ls"), { echo: {} });
    assert.equal(s.requests.length, 2);
    for (const r of s.requests) {
      assert.equal(r.protocol, 1);
      assert.equal(typeof r.id, "string");
      assert.match(String(r.id), /^[0-9a-f-]{36}$/);
    }
    assert.notEqual(s.requests[0].id, s.requests[1].id);
  });

  test("a missing result is null; an error envelope is its class", async () => {
    const s = await serve({
      onRequest: (req) =>
        req.method === "agent.send"
          ? { error: { code: "not_found", message: "no agent x", details: { target: "x" } } }
          : req.method === "agent.kill"
            ? { error: { code: "state_conflict", message: "m", details: { reason: "force_required" } } }
            : { result: undefined },
    });
    const t = new Transport(s.socket);
    assert.equal(await t.request("server.stop"), null);
    const e = await rejectsWith(t.request("agent.send", { target: "x" }), NotFound);
    assert.equal(e.message, "no agent x");
    assert.deepEqual(e.details, { target: "x" });
    const sc = await rejectsWith(t.request("agent.kill"), StateConflict);
    assert.equal((sc as StateConflict).forceRequired, true);
  });

  test("blank lines and event frames before the response are skipped; a reply may come byte by byte", async () => {
    const s = await rawServer((conn) => {
      const text = '\n  \r\n\t\n{"subscription":1,"seq":3,"event":{"kind":"x"}}\n{"id":"z","ok":true,"result":{"n":1}}\n';
      let i = 0;
      const tick = () => {
        if (i >= text.length) return;
        conn.write(text[i++]);
        setImmediate(tick);
      };
      tick();
    });
    assert.deepEqual(await new Transport(s.socket).request("agent.ls"), { n: 1 });
  });

  test("a reply of exactly 16 MiB is read; one byte more is frame_too_large", async () => {
    const framed = (n: number) => {
      const head = '{"id":"x","ok":true,"result":"';
      const tail = '"}';
      return head + "a".repeat(n - head.length - tail.length) + tail;
    };
    const s = await rawServer((conn) => conn.write(framed(MAX_FRAME_BYTES) + "\n"));
    const got = (await new Transport(s.socket).request("api.snapshot")) as string;
    assert.equal(got.length, MAX_FRAME_BYTES - 32);
    const big = await rawServer((conn) => conn.write(framed(MAX_FRAME_BYTES + 1) + "\n"));
    await rejectsWith(new Transport(big.socket).request("api.snapshot"), EnvironmentError, "frame_too_large");
  });

  test("an endless line fails frame_too_large without waiting for its end", async () => {
    const s = await rawServer((conn) => {
      const chunk = Buffer.alloc(1 << 20, 0x61);
      for (let i = 0; i < 17; i++) conn.write(chunk);
      // no newline, no close
    });
    const e = await rejectsWith(new Transport(s.socket, { timeoutMs: 10_000 }).request("api.snapshot"), EnvironmentError, "frame_too_large");
    assert.equal(e.details?.limit_bytes, MAX_FRAME_BYTES);
  });

  test("a line that is not JSON, or not an object, is EnvironmentError bad_frame", async () => {
    for (const line of ["{not json", "[1,2]", "42", "null"]) {
      const s = await rawServer((conn) => conn.write(line + "\n"));
      await rejectsWith(new Transport(s.socket).request("agent.ls"), EnvironmentError, "bad_frame");
    }
  });

  test("EOF before any response is server_unreachable", async () => {
    const s = await rawServer((conn) => conn.end());
    await rejectsWith(new Transport(s.socket).request("agent.ls"), EnvironmentError, "server_unreachable");
    const partial = await rawServer((conn) => conn.end('{"id":"x","ok":tr'));
    await rejectsWith(new Transport(partial.socket).request("agent.ls"), EnvironmentError, "server_unreachable");
  });

  test("no socket, or nobody listening, is server_unreachable; a symlink is unsafe_home", async () => {
    const dir = tempDir();
    await rejectsWith(new Transport(join(dir, "orcr.sock")).request("agent.ls"), EnvironmentError, "server_unreachable");
    const s = await serve({ onRequest: handshakeAnswer });
    symlinkSync(s.socket, join(dir, "link.sock"));
    await rejectsWith(new Transport(join(dir, "link.sock")).request("agent.ls"), EnvironmentError, "unsafe_home");
  });

  test("no reply in time is client_timeout; agent.wait and agent.ask have no client timeout", async () => {
    const s = await serve({
      onRequest: async (req) => {
        if (req.method === "agent.ls") return undefined; // never answers
        await new Promise((r) => setTimeout(r, 400));
        return { result: { method: req.method } };
      },
    });
    const t = new Transport(s.socket, { timeoutMs: 150 });
    const e = await rejectsWith(t.request("agent.ls"), EnvironmentError, "client_timeout");
    assert.equal(e.details?.timeout_ms, 150);
    assert.deepEqual(await t.request("agent.wait", { targets: ["x"] }), { method: "agent.wait" });
    assert.deepEqual(await t.request("agent.ask", { path: "/x" }), { method: "agent.ask" });
    await rejectsWith(t.request("agent.send", {}), EnvironmentError, "client_timeout");
    assert.deepEqual(await t.request("agent.send", {}, { timeoutMs: null }), { method: "agent.send" });
  });

  test("a request frame over 16 MiB is refused before sending", async () => {
    const s = await serve({ onRequest: () => ({ result: {} }) });
    const e = await rejectsWith(
      new Transport(s.socket).request("agent.run", { prompt: "x".repeat(MAX_FRAME_BYTES) }),
      InvalidRequest,
      "frame_too_large",
    );
    assert.equal(e.details?.limit_bytes, MAX_FRAME_BYTES);
    assert.equal(s.requests.length, 0);
  });
});

describe("FrameSplitter", () => {
  test("lines across chunks, blank lines dropped, the limit exact", () => {
    const lines: string[] = [];
    const fs = new FrameSplitter(8);
    fs.push(Buffer.from("ab"), (l) => lines.push(l.toString()));
    fs.push(Buffer.from("c\n\n \r\n1234"), (l) => lines.push(l.toString()));
    fs.push(Buffer.from("5678\n"), (l) => lines.push(l.toString()));
    assert.deepEqual(lines, ["abc", "12345678"]);
    fs.push(Buffer.from("1234"), () => {});
    assert.throws(() => fs.push(Buffer.from("56789"), () => {}), /exceeds 8 bytes/);
    const ok = new FrameSplitter(8);
    ok.push(Buffer.from("12345678\n123"), (l) => lines.push(l.toString()));
    assert.deepEqual(lines, ["abc", "12345678", "12345678"]);
    assert.equal(ok.buffered, 3);
  });
});

describe("streams", () => {
  test("the initial result, then the frames, until EOF", async () => {
    const s = await rawServer((conn) => {
      conn.write('{"id":"i","ok":true,"result":{"subscription":4,"from_seq":9}}\n');
      conn.write('{"subscription":4,"seq":10,"event":{"kind":"agent.created","ref_uuid":"u"}}\n\n');
      conn.end('{"subscription":4,"seq":0,"event":{"kind":"server_stopping"}}\n');
    });
    const sub = await new Transport(s.socket).openStream("events.subscribe", { since_seq: 9 });
    assert.deepEqual(sub.initial, { subscription: 4, from_seq: 9 });
    const kinds: string[] = [];
    for await (const f of sub) kinds.push(`${f.seq}:${f.event.kind}`);
    assert.deepEqual(kinds, ["10:agent.created", "0:server_stopping"]);
    assert.equal(sub.closed, true);
  });

  test("an error response opens no stream; close() ends a waiting iteration", async () => {
    const s = await serve({
      onRequest: (req) =>
        req.method === "events.subscribe"
          ? { error: { code: "server_error", message: "old", details: { cause: "cursor_expired", oldest_seq: 7 } } }
          : { result: { subscription: 1, snapshot_seq: 0, snapshot: {} } },
    });
    const t = new Transport(s.socket);
    const e = await rejectsWith(t.openStream("events.subscribe", { since_seq: 1 }), OrcrError, "cursor_expired");
    assert.equal(e.details?.oldest_seq, 7);
    const sub = await t.openStream("watch.open");
    const pending = sub.next();
    sub.close();
    assert.deepEqual(await pending, { done: true, value: undefined });
  });

  test("a broken frame mid-stream ends the iteration with its error", async () => {
    const s = await rawServer((conn) => {
      conn.write('{"id":"i","ok":true,"result":{}}\n{"subscription":1,"seq":1,"event":{"kind":"a"}}\n');
      setTimeout(() => conn.write("garbage\n"), 20);
    });
    const sub = await new Transport(s.socket).openStream("watch.open");
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const f of sub) seen.push(f.seq);
      })(),
      (e: unknown) => e instanceof EnvironmentError && e.causeCode === "bad_frame",
    );
    assert.deepEqual(seen, [1]);
  });
});

describe("handshake", () => {
  test("a server speaking another protocol is unsupported_version, and no server is started", async () => {
    const s = await serve({
      onRequest: (req) => (req.method === "server.handshake" ? { result: { pid: 1, protocol: 2, ready: true } } : { result: {} }),
    });
    const c = new OrcrClient(new Transport(s.socket), { env: { ORCR_BIN: "/nonexistent/orcr" } });
    const e = await rejectsWith(c.agent.ls(), EnvironmentError, "unsupported_version");
    assert.equal(e.details?.server_protocol, 2);
    assert.deepEqual(
      s.requests.map((r) => r.method),
      ["server.handshake"],
    );
  });

  test("a server refusing the declared protocol is unsupported_version too", async () => {
    const s = await serve({
      onRequest: () => ({
        error: { code: "environment_error", message: "client declared socket protocol 1 but this orcr server speaks 2", details: { cause: "unsupported_version" } },
      }),
    });
    const c = new OrcrClient(new Transport(s.socket), { env: { ORCR_BIN: "/nonexistent/orcr" } });
    await rejectsWith(c.server.status(), EnvironmentError, "unsupported_version");
  });

  test("the handshake is made once per client", async () => {
    const s = await serve({ onRequest: (req) => handshakeAnswer(req) ?? { result: { agents: [] } } });
    const c = new OrcrClient(new Transport(s.socket), { autoStart: false });
    await Promise.all([c.agent.ls(), c.agent.ls()]);
    await c.agent.ls();
    assert.deepEqual(
      s.requests.map((r) => r.method),
      ["server.handshake", "agent.ls", "agent.ls", "agent.ls"],
    );
  });
});
