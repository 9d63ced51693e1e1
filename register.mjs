// Preload: `node --import @ardaulas/blackbox/register app.js`. With BLACKBOX_MODE unset
// or "off" it returns at once and loads nothing else. Package managers that NODE_OPTIONS
// also reaches (npm, npx, yarn, pnpm under `blackbox record -- npm start`) never call a
// model themselves: only the app they start is hooked, which saves ~200 ms per runner.
const mode = process.env.BLACKBOX_MODE;
const runner = /(^|[\\/])(npm|npx|pnpm|pnpx|yarn|corepack)(-cli)?(\.c?js)?$/.test(process.argv[1] ?? "");
if (mode && mode !== "off" && !runner) await import("./dist/register.js");
