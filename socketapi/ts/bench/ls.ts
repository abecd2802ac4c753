// The cost of the SDK over the socket: `orcr.agent.ls()` against a raw round trip from
// Node (connect, write one agent.ls frame, read one line, JSON.parse, close), on the same
// server in the same run. Needs a server (it auto-starts one like any SDK call).
//
//   ORCR_BENCH_N=2000 npx tsx bench/ls.ts

import { createConnection } from "node:net";
import { performance } from "node:perf_hooks";

import { orcr, socketPath } from "../dist/index.js";

const n = Math.max(10, Number(process.env.ORCR_BENCH_N ?? 2000));
const rounds = 5;

function rawLs(path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const conn = createConnection({ path });
    let buf = "";
    conn.setEncoding("utf8");
    conn.on("connect", () => conn.write(JSON.stringify({ protocol: 1, id: 1, method: "agent.ls", params: {} }) + "\n"));
    conn.on("data", (d: string) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      conn.destroy();
      const msg = JSON.parse(buf.slice(0, nl));
      if (msg.ok) resolve(msg.result);
      else reject(new Error(msg.error?.message));
    });
    conn.on("error", reject);
  });
}

async function time(k: number, f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < k; i++) await f();
  return performance.now() - t0;
}

await orcr.ensureRunning();
const path = socketPath();
const rows = (await orcr.agent.ls()).length;
// Warm both paths (JIT, the server's caches), then alternate blocks so drift hits both.
await time(50, () => rawLs(path));
await time(50, () => orcr.agent.ls());
let raw = 0;
let sdk = 0;
const per = Math.ceil(n / rounds);
for (let r = 0; r < rounds; r++) {
  raw += await time(per, () => rawLs(path));
  sdk += await time(per, () => orcr.agent.ls());
}
const total = per * rounds;
const us = (ms: number) => ((ms * 1000) / total).toFixed(1);
console.log(`agent.ls over ${total} calls each (${rows} rows):`);
console.log(`  raw socket round trip  ${us(raw)} µs/op`);
console.log(`  SDK orcr.agent.ls()    ${us(sdk)} µs/op`);
console.log(`  ratio SDK/raw          ${(sdk / raw).toFixed(2)}`);
