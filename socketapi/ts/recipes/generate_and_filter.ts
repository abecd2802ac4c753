// Generate and filter: the same prompt runs across a roster of provider, model and effort
// combinations at once, then one judge on a fixed provider picks a draft by its number
// (an unparsable pick is draft 0). Agents: tagline_drafts/generate/gen_<i>,
// tagline_drafts/judge. Providers: $ORCR_RECIPE_AGENT and $ORCR_RECIPE_VERIFIER write,
// $ORCR_RECIPE_VERIFIER judges.
import { orcr } from "@orchestratr/sdk";
import { author, checker, firstLine, prompt } from "./lib.js";

// An absent model or effort is the provider's configured default.
const roster: { agent?: string; model?: string; effort?: string }[] = [
  { agent: author, effort: "low" },
  { agent: author, effort: "high" },
  { agent: checker },
];

const task = "Write a one-line tagline for a tool that runs coding agents in terminal panes.";

await orcr.scope("tagline_drafts", async () => {
  const drafts = await Promise.all(roster.map(async (combo, i) => firstLine(await orcr.ask({
    path: `generate/gen_${i}`, ...combo, timeout: "10m",
    prompt: prompt(combo.agent, task, `say=draft_from_gen_${i}`),
  }))));
  const listed = drafts.map((d, i) => `${i}: ${d}`).join(" | ");
  const answer = firstLine(await orcr.ask({
    name: "judge", agent: checker, timeout: "10m",
    prompt: prompt(checker, `Pick the best tagline. ${listed}. Answer with its number only.`, "say=2"),
  }));
  const n = Number(answer.match(/\d+/)?.[0]);
  const pick = Number.isInteger(n) && n < drafts.length ? n : 0;
  console.log(`judge picked draft ${pick} of ${drafts.length}: ${drafts[pick]}`);
}, { killOnThrow: true });
