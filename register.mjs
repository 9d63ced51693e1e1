// Preload: `node --import @ardaulas/blackbox/register app.js`. With BLACKBOX_MODE unset
// or "off" it returns at once and loads nothing else.
const mode = process.env.BLACKBOX_MODE;
if (mode && mode !== "off") await import("./dist/register.js");
