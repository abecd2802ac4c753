// A first orcr workflow: one agent, named hello, under the scope scaffold_demo.
// What else the SDK can do (fan-out, send, watch, loops) and where workflow scripts
// live: the orcr skill's references/sdk.md (`orcr skill show sdk`).
import { orcr } from "@orchestratr/sdk";

await orcr.scope("scaffold_demo", async () => {
  // No provider is named, so the server's config defaults.agent runs it.
  const hello = await orcr.agent.run({
    name: "hello",
    gc: "immediate",
    prompt: "In one short sentence, tell me which coding agent you are, then say DONE",
  });
  await hello.wait();
  console.log(await hello.lastResponse());
});
