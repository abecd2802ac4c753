// Fix until green: one long-lived fixer (gc never); for up to 10 rounds this program runs
// the build, sends its errors to the fixer and waits; once green, a fresh verifier on
// another provider answers PASS or FAIL, and a FAIL goes back to the fixer. Then the
// fixer is killed. Agents: fix_build/fixer, fix_build/verify/round_<r>. Providers:
// $ORCR_RECIPE_AGENT fixes, $ORCR_RECIPE_VERIFIER verifies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { orcr } from "@orchestratr/sdk";
import { author, checker, firstLine, prompt, settle } from "./lib.js";

/**
 * build stands in for a real build (go build ./..., npm test): the "program" is the first
 * line of patch.txt in dir, which must be a sum of at least two whole numbers equal to
 * 42. It returns "" when green, else the error.
 */
function build(dir: string): string {
  let line: string;
  try {
    line = firstLine(readFileSync(join(dir, "patch.txt"), "utf8"));
  } catch {
    return "patch.txt is missing";
  }
  const terms = line.split("+").map((t) => t.trim());
  if (terms.length < 2 || !terms.every((t) => /^\d+$/.test(t))) return `${JSON.stringify(line)} is not a sum of whole numbers`;
  const sum = terms.reduce((s, t) => s + Number(t), 0);
  return sum === 42 ? "" : `${JSON.stringify(line)} is ${sum}, want 42`;
}

await orcr.scope("fix_build", async () => {
  const fixer = await orcr.agent.run({
    name: "fixer", agent: author, gc: "never", timeout: "2h",
    prompt: prompt(author, "You fix a broken build: the first line of $ORCR_AGENT_DATA_DIR/patch.txt must be a sum of at least two whole numbers equal to 42. You will be sent the build errors; say DONE after each fix.", "say=ready"),
  });
  // send hands the fixer a prompt and waits for that very turn (an earlier idle never
  // satisfies a wait after a send).
  const send = async (text: string) => {
    await fixer.send(text);
    await settle(fixer, "30m");
  };
  await settle(fixer, "10m");
  let fixes = 0, rejections = 0;
  for (let round = 0; round < 10; round++) {
    const errors = build(fixer.dataDir);
    if (errors !== "") {
      console.log(`round ${round}: build fails: ${errors}`);
      const mock = fixes === 0 ? "say=40+1" : "say=40+2"; // the mock's first fix is off by one, its next one right
      fixes++;
      await send(prompt(author, `The build fails: ${errors}. Fix it.`, mock, "write=patch.txt"));
      continue;
    }
    const mock = rejections === 0 ? "say=FAIL:looks_hardcoded" : "say=PASS"; // the mock verifier rejects the first green build
    const verdict = firstLine(await orcr.ask({
      path: `verify/round_${round}`, agent: checker, timeout: "15m",
      prompt: prompt(checker, `The build is green after a fix in ${join(fixer.dataDir, "patch.txt")}. Is it a real fix rather than a hack? Reply PASS, or FAIL: <reason>.`, mock),
    }));
    if (verdict.toUpperCase().startsWith("PASS")) {
      console.log(`round ${round}: green and verified after ${fixes} fixes and ${rejections} rejections`);
      await fixer.kill();
      return;
    }
    console.log(`round ${round}: green, but the verifier says ${verdict}`);
    rejections++;
    await send(prompt(author, `A reviewer rejected your fix: ${verdict}. Improve it.`, "say=40+2", "write=patch.txt"));
  }
  throw new Error("still not green and verified after 10 rounds");
}, { killOnThrow: true });
