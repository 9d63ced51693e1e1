/**
 * The entry `npm run bundle:sucrase` bundles with sucrase into one CommonJS file,
 * dist/vendor/sucrase.cjs (with sucrase's license beside it), which src/config/index.ts
 * requires when it first strips a TypeScript config's types. sucrase is ~100 CommonJS
 * files, ~35-50 ms to load one by one, ~12 ms as one. So sucrase is a devDependency: the
 * package ships this bundle, not sucrase's command-line dependencies.
 */
export { transform } from "sucrase";
