// Loop until done, a durable handoff: this program works the first items of a backlog
// now, then creates a loop whose command is this very script (by absolute path) and
// exits. Each run of the loop sees from its environment that it is a loop run, works one
// item, and removes its own loop once the backlog is empty. The backlog is
// drain_backlog.json in the working directory, which the runs share. Agents:
// drain_backlog/item_<x> now, then drain_backlog/<run_id>/item_<x>. Provider:
// $ORCR_RECIPE_AGENT, kept in the backlog.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { orcr } from "@orchestratr/sdk";
import { author, firstLine, prompt } from "./lib.js";

const loopName = "drain_backlog";
const backlogFile = "drain_backlog.json";
const workNow = 2; // items worked before the handoff

interface Backlog { agent?: string; todo: string[]; done: string[] }

/** work asks an agent to do the first item and moves it to done. */
async function work(b: Backlog): Promise<void> {
  const item = b.todo[0];
  const answer = await orcr.ask({
    name: item, agent: b.agent, timeout: "4m",
    prompt: prompt(b.agent, `Do backlog item ${item} and reply with one line saying what you did.`, `say=${item}_done`),
  });
  b.todo = b.todo.slice(1);
  b.done.push(item);
  console.log(`${orcr.currentScope()}/${item}: ${firstLine(answer)}`);
}

/** save replaces the backlog file whole (write, then rename), so a run never reads half. */
function save(b: Backlog): void {
  writeFileSync(`${backlogFile}.tmp`, JSON.stringify(b, null, 2));
  renameSync(`${backlogFile}.tmp`, backlogFile);
}

const ctx = orcr.context.fromEnv();
if (ctx.kind === "loopRun") {
  // One run: one item (no scope needed: a run's scope is its own path, <loop>/<run_id>),
  // then the loop's end when nothing is left.
  const b: Backlog = JSON.parse(readFileSync(backlogFile, "utf8"));
  if (b.todo.length > 0) {
    await work(b);
    save(b);
  }
  if (b.todo.length === 0) {
    const loop = orcr.loopNameFrom(ctx.path!);
    await orcr.loop.rm(loop);
    console.log(`backlog done (${b.done.length} items): removed loop ${loop}`);
  }
} else {
  const b: Backlog = { agent: author, todo: ["item_a", "item_b", "item_c", "item_d", "item_e"], done: [] };
  await orcr.scope(loopName, async () => {
    for (let i = 0; i < workNow; i++) await work(b);
  }, { killOnThrow: true });
  save(b);
  // The command: this node, with the loader flags tsx gave it, on this file. Each run
  // gets 5 minutes, less than the 10 between fires; its cwd is this one.
  await orcr.loop.create({
    name: loopName, cron: "*/10 * * * *", timeout: "5m",
    command: [process.execPath, ...process.execArgv, fileURLToPath(import.meta.url)],
  });
  console.log(`handed ${b.todo.length} items to loop ${loopName}`);
}
