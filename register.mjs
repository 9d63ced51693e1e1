// Preload: `node --import @ardaulas/blackbox/register app.js`. With BLACKBOX_MODE unset
// or "off" it returns at once and loads nothing else. Package managers that NODE_OPTIONS
// also reaches (npm, npx, yarn, pnpm under `blackbox record -- npm start`) never call a
// model themselves: only the app they start is hooked, which saves ~200 ms per runner.
const mode = process.env.BLACKBOX_MODE;
const runner = /(^|[\\/])(npm|npx|pnpm|pnpx|yarn|corepack)(-cli)?(\.c?js)?$/.test(process.argv[1] ?? "");
if (mode && mode !== "off" && !runner) await import(await entry());

// dist/register.js bundled into a few files (npm run build: esbuild, errors.js kept shared
// with the library) loads ~15 ms faster than its ~50 modules. It is used only when it is
// at least as new as tsc's output, so a build by `tsc` alone never runs a stale bundle.
async function entry() {
  const { statSync } = await import("node:fs");
  const plain = new URL("./dist/register.js", import.meta.url);
  const bundle = new URL("./dist/register-bundle/register.js", import.meta.url);
  const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  return mtime(bundle) >= mtime(plain) ? bundle.href : plain.href;
}
