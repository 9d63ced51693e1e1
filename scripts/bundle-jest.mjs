// The CommonJS build of @ardaulas/blackbox/jest (dist/jest/index.cjs, the "require" of its
// export): Jest's default runtime is CommonJS and cannot require() the package's ES
// modules from node_modules (it transforms none there), so the entry and the library files
// it uses are bundled into one CommonJS file. The packages stay external (each has a
// CommonJS build); import.meta.url, which a few files hand to createRequire(), is the
// bundle's own file URL.
import { resolve } from "node:path";
import { build } from "esbuild";

const dist = resolve(import.meta.dirname, "..", "dist");

await build({
  entryPoints: [resolve(dist, "jest/index.js")],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  packages: "external",
  define: { "import.meta.url": "__blackboxBundleUrl" },
  banner: { js: 'const __blackboxBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  outfile: resolve(dist, "jest/index.cjs"),
  logLevel: "warning",
});
