// The register hook's bundle: dist/register.js and what it imports, in a few files
// (a preload of ~50 modules loads measurably slower than of a few; bench/startup.mjs).
// dist/errors.js stays outside it, shared with the library, so an error thrown by the
// hook is the library's own class. canonicalize is loaded at its first call.
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";

const dist = resolve(import.meta.dirname, "..", "dist");
const errors = resolve(dist, "errors.js");
rmSync(resolve(dist, "register-bundle"), { recursive: true, force: true });

await build({
  entryPoints: [resolve(dist, "register.js")],
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  packages: "external",
  alias: { canonicalize: resolve(dist, "vendor/lazyCanonicalize.js") },
  outdir: resolve(dist, "register-bundle"),
  logLevel: "warning",
  plugins: [
    {
      name: "shared-errors",
      setup(b) {
        b.onResolve({ filter: /errors\.js$/ }, (args) =>
          resolve(args.resolveDir, args.path) === errors ? { path: "../errors.js", external: true } : undefined,
        );
      },
    },
  ],
});
