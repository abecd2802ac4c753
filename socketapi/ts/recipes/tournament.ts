// Tournament: candidates meet in pairwise matches, each a one-shot judge answering A or B
// (anything else counts as A); winners advance, an odd one out gets a bye, until one
// remains. Agents: tagline_tournament/round_<r>/match_<m>. Provider:
// $ORCR_RECIPE_VERIFIER judges.
import { orcr } from "@orchestratr/sdk";
import { checker, firstLine, prompt } from "./lib.js";

const candidates = [
  "Agents in panes, not in the dark",
  "One socket, many minds",
  "Delegate, wait, read",
  "Your terminal, staffed",
  "Fan out, merge in",
];

await orcr.scope("tagline_tournament", async () => {
  let field = candidates;
  for (let round = 0; field.length > 1; round++) {
    const matches = Array.from({ length: Math.floor(field.length / 2) }, (_, m) => [field[2 * m], field[2 * m + 1]] as const);
    const winners = await Promise.all(matches.map(async ([a, b], m) => {
      const mock = m % 2 === 0 ? "say=B" : "say=maybe"; // the mock judge picks B in even matches and mumbles in odd ones
      const raw = firstLine(await orcr.ask({
        path: `round_${round}/match_${m}`, agent: checker, timeout: "10m",
        prompt: prompt(checker, `Which tagline is better for a tool that runs coding agents? A: ${JSON.stringify(a)} B: ${JSON.stringify(b)}. Answer with the single letter A or B.`, mock),
      }));
      const answer = raw.toUpperCase().replace(/^[ ."'*]+|[ ."'*]+$/g, "");
      if (answer === "B") return b;
      if (answer !== "A") console.log(`round_${round}/match_${m} answered ${JSON.stringify(raw)}: A advances`);
      return a;
    }));
    if (field.length % 2 === 1) winners.push(field[field.length - 1]); // the bye
    console.log(`round ${round}: ${winners.length} left`);
    field = winners;
  }
  console.log("winner:", field[0]);
}, { killOnThrow: true });
