#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

// A reader that goes away (`blackbox show run.json | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

process.exitCode = await main(process.argv.slice(2));
