// A fake orcr server for the unit tests: a Unix socket in a temporary directory whose
// connections are handed to a test's handler, frame by frame or as raw sockets.

import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { tempDir } from "./tmp.js";

/** A request as the fake server received it. */
export interface Received {
  protocol?: unknown;
  id?: unknown;
  method: string;
  params: Record<string, unknown>;
}

/** What a handler answers: a result, an error object, or nothing (it wrote by itself). */
export type Answer = { result: unknown } | { error: { code: string; message?: string; details?: unknown } } | undefined;

export interface FakeServer {
  dir: string;
  socket: string;
  /** Every request received, in order. */
  requests: Received[];
  close(): Promise<void>;
}

/**
 * fakeServer serves a socket. With onRequest, each line is parsed and answered with the
 * handler's answer (as a response frame echoing the id); with onConnection the handler
 * gets the raw socket.
 */
export async function fakeServer(handlers: {
  onRequest?: (req: Received, conn: Socket) => Answer | Promise<Answer>;
  onConnection?: (conn: Socket) => void;
}): Promise<FakeServer> {
  const dir = tempDir();
  const socket = join(dir, "orcr.sock");
  const requests: Received[] = [];
  const conns = new Set<Socket>();
  const server: Server = createServer((conn) => {
    conns.add(conn);
    conn.on("close", () => conns.delete(conn));
    conn.on("error", () => {});
    if (handlers.onConnection) {
      handlers.onConnection(conn);
      return;
    }
    let buf = "";
    conn.setEncoding("utf8");
    conn.on("data", async (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const req = JSON.parse(line) as Received;
        requests.push(req);
        const ans = await handlers.onRequest?.(req, conn);
        if (ans === undefined || conn.destroyed) continue;
        conn.write(JSON.stringify("result" in ans ? { id: req.id, ok: true, result: ans.result } : { id: req.id, ok: false, error: ans.error }) + "\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    dir,
    socket,
    requests,
    close: async () => {
      for (const c of conns) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The answers of a well-behaved server to the calls every client makes first. */
export function handshakeAnswer(req: Received): Answer {
  if (req.method === "server.handshake") return { result: { pid: 1, protocol: 1, store: "/x/orcr.db", ready: true } };
  return undefined;
}

/**
 * mulberry32 is a small seeded generator (a 32-bit state, uniform in [0, 1)), so a
 * property test replays the same cases for the same seed.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** pick draws one element of xs with rnd. */
export function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)];
}
