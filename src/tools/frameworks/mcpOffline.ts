/**
 * What a replayed MCP client is connected to (mcp.ts): a transport that starts nothing (no
 * process spawned, no socket opened) and answers no request, so that after a replayed
 * `connect()` the client is connected as the SDK sees it (`client.transport` set, `close()`
 * closing it and calling `onclose`) while every request Blackbox records is answered from
 * the cassette before it reaches the transport. A request that does reach it (one the
 * cassette cannot answer) is refused with a message saying which and what to do.
 */

interface JsonRpcMessage {
  id?: unknown;
  method?: unknown;
}

export class OfflineTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: unknown) => void;

  constructor(
    /** The server's name as the cassette holds it. */
    private readonly server: string,
    /** The client methods answered from the cassette, for the message. */
    private readonly answered: readonly string[],
  ) {}

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage): Promise<void> {
    // a notification (notifications/initialized, a cancel) has no answer to give
    if (message?.id === undefined) return;
    const method = typeof message.method === "string" ? message.method : "a request";
    throw new Error(
      `blackbox: the MCP client of server "${this.server}" was connected from the cassette, so no server was started, and its "${method}" request has no answer: Blackbox answers only ${this.answered.join(", ")}, and only the calls the recording made (past a fork point, callTool and the list calls start the agent's own transport; no other request does); make this request only where the recording made it too, or record the run again`,
    );
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}
