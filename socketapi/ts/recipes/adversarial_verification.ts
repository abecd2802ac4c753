// Adversarial verification: one worker you keep (gc never); in up to 5 rounds a panel of
// verifiers on another provider, one per lens, each told to find a real problem, replies
// PASS or FAIL; when more than half fail, their objections go to the worker and the panel
// runs again. Agents: critical_change/worker, critical_change/verify/round_<r>/lens_<i>.
// Providers: $ORCR_RECIPE_AGENT works, $ORCR_RECIPE_VERIFIER verifies.
import { join } from "node:path";
import { orcr } from "@orchestratr/sdk";
import { author, checker, firstLine, prompt, settle } from "./lib.js";

const lenses = ["correctness", "security", "failure handling"];

// What the mock verifiers answer, per round and lens: two objections, then one.
const mockVerdicts = [
  ["FAIL:no_input_validation", "FAIL:secret_in_log", "PASS"],
  ["FAIL:naming_nit", "PASS", "PASS"],
];

await orcr.scope("critical_change", async () => {
  const worker = await orcr.agent.run({
    name: "worker", agent: author, gc: "never", timeout: "3h",
    prompt: prompt(author, "Add refunds to the payments module. Describe your change in $ORCR_AGENT_DATA_DIR/change.md, then say DONE.", "say=refunds_added", "write=change.md"),
  });
  await settle(worker, "1h");
  const change = join(worker.dataDir, "change.md");
  for (let round = 0; round < 5; round++) {
    const verdicts = await Promise.all(lenses.map(async (lens, i) => firstLine(await orcr.ask({
      path: `verify/round_${round}/lens_${i}`, agent: checker, timeout: "20m",
      prompt: prompt(checker, `Review the change described in ${change} for ${lens}. Find a real problem. Reply PASS, or FAIL: <problem>.`,
        `say=${mockVerdicts[round]?.[i] ?? "PASS"}`),
    }))));
    const objections = verdicts.flatMap((v, i) => (v.toUpperCase().startsWith("PASS") ? [] : [`${lenses[i]}: ${v}`]));
    console.log(`round ${round}: ${objections.length} of ${lenses.length} lenses fail`);
    if (2 * objections.length <= lenses.length) {
      console.log(`accepted in round ${round}`);
      await worker.kill();
      return;
    }
    await worker.send(prompt(author, `Reviewers found problems: ${objections.join("; ")}. Fix them and update change.md.`, "say=refunds_revised", "write=change.md"));
    await settle(worker, "1h");
  }
  throw new Error("the panel still objects after 5 rounds");
}, { killOnThrow: true });
