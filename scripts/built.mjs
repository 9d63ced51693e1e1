// Builds dist/ when it is not there yet (a fresh clone after `npm ci`, which runs no build
// script: the package has no install scripts, so installing it from its tarball runs none).
// `npm run build` rebuilds always; `npm test` does.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

if (!existsSync(resolve(import.meta.dirname, "..", "dist", "cli", "main.js"))) {
  process.stderr.write("dist/ is not built yet: npm run build\n");
  execSync("npm run build --silent", { stdio: "inherit", cwd: resolve(import.meta.dirname, "..") });
}
