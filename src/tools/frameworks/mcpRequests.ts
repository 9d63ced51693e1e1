/**
 * Requests an MCP server sends the client (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`, any other the client has a handler for): Blackbox records the client's
 * requests to a server, not these, and a replay runs no server, so nothing would send them
 * and the agent's handler would not run. A run in which the client handles one is refused
 * (mcp.ts patches the client's `_onrequest`, where the SDK's Protocol dispatches an
 * incoming request to the handler `setRequestHandler` set): the recording fails at its end
 * naming the request, and no cassette is written. A request the client has no handler for
 * is answered "Method not found" by the SDK, which the server's answer (recorded) reflects,
 * and `ping` is answered by the SDK alone: both are let through.
 */
import { BlackboxUnsupportedError } from "../../errors.js";

/** The SDK's Protocol as the check reads it (its fields are private in its types). */
export interface McpProtocol {
  _requestHandlers?: Map<string, unknown>;
  fallbackRequestHandler?: unknown;
}

/** Whether the agent's client would handle `method` itself (the SDK answers ping alone). */
export function handled(client: McpProtocol, method: string): boolean {
  if (method === "ping") return false;
  return client._requestHandlers?.has(method) === true || client.fallbackRequestHandler !== undefined;
}

/** The refusal of a request `server` sent the client, `during` the client's call in flight, if any. */
export function serverRequest(server: string, method: string, during: string | undefined): BlackboxUnsupportedError {
  const where = during === undefined ? "" : ` during the client's ${during}`;
  return new BlackboxUnsupportedError(
    `the MCP server "${server || "(unnamed)"}" sent the client a "${method}" request${where}, and the client handled it: Blackbox records the client's requests to an MCP server, not a server's requests to the client, and a replay runs no server, so nothing would send it again and the agent's handler for it would not run. Record a run in which no server sends the client a request its handler answers (no sampling, elicitation or roots for this run: a client without a handler for "${method}" lets the server get "Method not found", which is recorded in the server's answer); docs/tools.md#mcp-servers-tools.`,
  );
}
