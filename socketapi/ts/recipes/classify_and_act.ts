// Classify and act: for each issue a cheap classifier must answer one word; the word is
// normalized through a fixed list (anything else is the safe class, question) and only
// then becomes a path, where that class's handler runs. Agents:
// triage/issue_<i>/classify, triage/issue_<i>/<class>/handler. Provider:
// $ORCR_RECIPE_AGENT.
import { orcr } from "@orchestratr/sdk";
import { author, firstLine, prompt } from "./lib.js";

const classes = ["bug", "feature", "question"]; // question is the safe default

const issues = [ // mock: what the mock classifier answers
  { text: "The CLI crashes when the config file is empty", mock: "say=Bug." },
  { text: "Please look at this as soon as you can", mock: "say=urgent!!" },
];

await orcr.scope("triage", async () => {
  await Promise.all(issues.map((issue, i) => orcr.scope(`issue_${i}`, async () => {
    const raw = firstLine(await orcr.ask({
      name: "classify", agent: author, timeout: "5m",
      prompt: prompt(author, `Classify this issue as exactly one word, bug, feature or question: ${issue.text}`, issue.mock),
    }));
    const word = raw.toLowerCase().replace(/[^a-z]/g, "");
    const kind = classes.includes(word) ? word : "question";
    const handled = await orcr.ask({
      path: `${kind}/handler`, agent: author, timeout: "30m",
      prompt: prompt(author, `Handle this ${kind} report and reply with one line: ${issue.text}`, `say=${kind}_handled`),
    });
    console.log(`issue_${i}: ${JSON.stringify(raw)} is ${kind}; ${kind}/handler: ${firstLine(handled)}`);
  })));
}, { killOnThrow: true });
