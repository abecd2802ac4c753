// The little the workflow recipes share: which providers they run, the mock provider's
// directives, and reading answers. Each recipe is a program of its own (docs/clients.md,
// "Workflow patterns"); run one with `npx tsx recipes/<name>.ts`.
import { NotFound, orcr, type AgentHandle } from "@orchestratr/sdk";

/** author does the work: $ORCR_RECIPE_AGENT, or undefined for the server's defaults.agent. */
export const author = process.env.ORCR_RECIPE_AGENT || undefined;

/** checker verifies and judges: $ORCR_RECIPE_VERIFIER. Point it at another provider than author. */
export const checker = process.env.ORCR_RECIPE_VERIFIER || undefined;

/**
 * prompt is text for provider. For the test-only mock provider it appends directives
 * (docs/providers.md §8: say=<word> makes the answer <word>, write=<file> also writes the
 * answer to that file in the agent's data dir), so a test drives every branch; a real
 * provider gets the text alone.
 */
export function prompt(provider: string | undefined, text: string, ...directives: string[]): string {
  return provider === "mock" && directives.length > 0 ? `${text} ${directives.join(" ")}` : text;
}

/** firstLine is an answer's first non-blank line, trimmed: what a recipe matches against its vocabulary. */
export function firstLine(answer: string): string {
  return answer.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
}

/**
 * settle waits until target (a pattern in the current scope, or a handle) settles — a
 * turn complete, or ended completed — and throws when it settles otherwise or timeout
 * passes first. A wait sees only agents that have not ended, so NotFound means every
 * target ended already (gc-immediate agents do).
 */
export async function settle(target: string | AgentHandle, timeout: string): Promise<void> {
  let res;
  try {
    res = typeof target === "string" ? await orcr.agent.wait(target, { timeout }) : await target.wait({ timeout });
  } catch (e) {
    if (e instanceof NotFound) return;
    throw e;
  }
  const name = typeof target === "string" ? target : target.path;
  if (res.timed_out) throw new Error(`${name}: not settled after ${timeout}`);
  for (const t of res.targets ?? []) if (!t.ok) throw new Error(`${t.path} settled ${t.reason}`);
}
