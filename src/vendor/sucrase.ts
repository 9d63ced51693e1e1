/**
 * sucrase's transform, for stripping the types of a TypeScript config (src/edges/config.ts).
 * The build bundles this file with sucrase into one module (`npm run bundle:sucrase`):
 * sucrase is ~100 CommonJS files, ~35-50 ms to load one by one, ~12 ms as one. So sucrase
 * is a devDependency: the package ships only this bundle (with sucrase's license beside it,
 * dist/vendor/sucrase.LICENSE), not sucrase's command-line dependencies. A tsc-only build
 * keeps this re-export, which loads the installed package.
 */
export { transform } from "sucrase";
