/**
 * The frameworks whose tool runs are captured with no config (one file a framework, each a
 * FrameworkTarget: types.ts); one more framework is one more entry here (an MCP server's
 * tools are reached through the MCP SDK's Client: mcp.ts, or the AI SDK's own MCP client:
 * mcpAiSdk.ts).
 */
import { agentsSdk } from "./agentsSdk.js";
import { aiSdk } from "./aiSdk.js";
import { anthropicToolRunner } from "./anthropic.js";
import { langchain } from "./langchain.js";
import { mastra } from "./mastra.js";
import { mcp } from "./mcp.js";
import { mcpAiSdk } from "./mcpAiSdk.js";
import { openaiRunTools } from "./openaiRunTools.js";
import type { FrameworkTarget } from "./types.js";

export const FRAMEWORK_TARGETS: readonly FrameworkTarget[] = [
  anthropicToolRunner,
  aiSdk,
  langchain,
  openaiRunTools,
  agentsSdk,
  mcp,
  mcpAiSdk,
  mastra,
];
