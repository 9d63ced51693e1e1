/**
 * `blackbox.config.{ts,mts,cts,js,mjs,cjs}`: which tool functions the register hook wraps and
 * which extra origins are provider endpoints. `defineConfig` only gives the file types.
 */
import type { ServiceName } from "./providers/types.js";
import type { RedactRules } from "./redact/index.js";

export interface ToolModuleEntry {
  /** Module path, relative to the config file. */
  module: string;
  /** Exported functions, each recorded under its export name. */
  exports: string[];
}

export interface ToolExportEntry {
  /** Module path, relative to the config file. */
  module: string;
  /** One exported function ... */
  export: string;
  /** ... recorded under this tool name (default: the export name). */
  name?: string;
}

export type ToolEntry = ToolModuleEntry | ToolExportEntry;

export interface BlackboxConfig {
  tools?: ToolEntry[];
  /** Extra base URLs routed through the session, per provider. */
  providers?: Partial<Record<ServiceName, string[]>>;
  /** What never reaches a cassette (docs/secrets.md); the default credential detectors are on, false turns them off. */
  redact?: RedactRules | false;
}

export function defineConfig<const C extends BlackboxConfig>(config: C): C {
  return config;
}
