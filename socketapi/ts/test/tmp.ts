// tempDir makes a short-named directory under the system temp dir (Unix socket paths
// are limited to ~104 bytes) and removes it when the test process exits, so a test run
// leaves nothing behind in /tmp.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "osdk"));
  made.push(dir);
  return dir;
}
