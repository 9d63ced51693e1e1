// Preload: `node --import @ardaulas/blackbox/register app.js`. With BLACKBOX_MODE unset
// or "off" it returns at once and loads nothing else. Package managers that NODE_OPTIONS
// also reaches (npm, npx, yarn, pnpm under `blackbox record -- npm start`) never call a
// model themselves: only the app they start is hooked, which saves ~200 ms per runner.
const mode = process.env.BLACKBOX_MODE?.trim().toLowerCase(); // as src/config/env.ts reads it
const runner = /(^|[\\/])(npm|npx|pnpm|pnpx|yarn|corepack)(-cli)?(\.c?js)?$/.test(process.argv[1] ?? "");
if (mode && mode !== "off" && !runner) await import(await entry());

// dist/register.js bundled into a few files (esbuild, errors.js kept shared with the
// library) loads ~15 ms faster than its ~50 modules. `npm run build` always writes both;
// a build by `tsc` alone (e.g. `tsc -w` while developing Blackbox) leaves the bundle as it
// was: run `npm run build` (or delete dist/register-bundle) to preload the new code.
async function entry() {
  const { existsSync } = await import("node:fs");
  const bundle = new URL("./dist/register-bundle/register.js", import.meta.url);
  return existsSync(bundle) ? bundle.href : new URL("./dist/register.js", import.meta.url).href;
}
