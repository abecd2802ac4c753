// Fan-out and merge: one cheap one-shot reviewer per file, all at once, each writing its
// findings to review.md in its data dir; then one synthesizer on another provider merges
// them. Agents: review/fanout/file_<i>, review/merge. Providers: $ORCR_RECIPE_AGENT
// reviews, $ORCR_RECIPE_VERIFIER merges.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { orcr } from "@orchestratr/sdk";
import { author, checker, firstLine, prompt, settle } from "./lib.js";

const files = ["auth.go", "session.go", "token.go"];

await orcr.scope("review", async () => {
  // The server queues what exceeds its concurrency caps: starting them all is safe.
  const reviewers = await Promise.all(files.map((file, i) => orcr.agent.run({
    path: `fanout/file_${i}`, agent: author, gc: "immediate", timeout: "20m",
    prompt: prompt(author, `Review ${file} for bugs. Write your main finding as one line to $ORCR_AGENT_DATA_DIR/review.md, then say DONE.`,
      `say=finding_${i}`, "write=review.md"),
  })));
  await settle("fanout/*", "30m");
  // The data dirs outlive the gc-immediate reviewers.
  const notes = await Promise.all(reviewers.map(async (r, i) =>
    `${files[i]}: ${await readFile(join(r.dataDir, "review.md"), "utf8").then(firstLine, () => "(no review written)")}`));
  for (const note of notes) console.log("review", note);
  const merged = await orcr.ask({
    name: "merge", agent: checker, timeout: "15m",
    prompt: `Merge these reviews into one prioritized list: ${notes.join(" | ")}`,
  });
  console.log("merged:", firstLine(merged));
}, { killOnThrow: true });
