// A program for a real terminal (tests/tssdk_attach_test.go runs it in tmux): it takes a
// takeover attach lease on the agent named by argv[2] and runs the attach on this
// terminal with AttachHandle.run(), then prints how it ended.
import { orcr } from "@orchestratr/sdk";

const target = process.argv[2];
const attach = await orcr.agent.prepareAttach(target, { takeover: true });
console.error(`lease ${attach.leaseId} on ${attach.path}`);
const code = await attach.run();
console.log(`RUN_EXIT=${code} LEASE=${attach.leaseId}`);
