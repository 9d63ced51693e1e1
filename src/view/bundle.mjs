/**
 * Bundles the viewer's page (src/view/ui/, Preact + TSX) with esbuild into one script and
 * one style, written as dist/view/ui-bundle.json for `blackbox view` to inline. Run by
 * `npm run build`. Refuses a bundle that names a network address or could end its
 * script or style element early.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("../../", import.meta.url);
const preact = JSON.parse(readFileSync(new URL("node_modules/preact/package.json", root), "utf8"));

const result = await build({
  entryPoints: [new URL("src/view/ui/main.tsx", root).pathname],
  bundle: true,
  write: false,
  minify: true,
  format: "iife",
  target: ["es2022", "chrome110", "firefox110", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: "out",
  legalComments: "none",
  banner: {
    js: `/*! Blackbox viewer; includes Preact ${preact.version} (MIT License, Copyright (c) 2015-present Jason Miller) */`,
  },
  logLevel: "warning",
});

const js = result.outputFiles.find((f) => f.path.endsWith(".js"))?.text;
const css = result.outputFiles.find((f) => f.path.endsWith(".css"))?.text;
if (!js || !css) throw new Error("esbuild wrote no script or no style for the viewer");

// XML namespace names in Preact (createElementNS) are names, not addresses
const NAMESPACES = [
  "http://www.w3.org/2000/svg",
  "http://www.w3.org/1998/Math/MathML",
  "http://www.w3.org/1999/xhtml",
  "http://www.w3.org/1999/xlink",
];
for (const [name, text] of [
  ["script", js],
  ["style", css],
]) {
  let rest = text;
  for (const ns of NAMESPACES) rest = rest.split(ns).join("");
  const url = /\b(?:https?|wss?|ftp):\/\/[^\s"'`)]*/i.exec(rest);
  if (url) throw new Error(`the viewer's ${name} names a network address (${url[0]}): the page must load nothing`);
  if (/<\/(script|style)/i.test(text) || /<!--/.test(text))
    throw new Error(`the viewer's ${name} holds </script, </style or <!--, which would end its element early`);
  if (/@import|url\(/i.test(css)) throw new Error("the viewer's style imports or loads a file");
}

mkdirSync(new URL("dist/view/", root), { recursive: true });
writeFileSync(new URL("dist/view/ui-bundle.json", root), JSON.stringify({ preact: preact.version, js, css }));
