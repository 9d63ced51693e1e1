import { describe, expect, it } from "vitest";
import { refusalFor } from "../../../src/interception/httpGuard.js";

const request = (headers: Record<string, string>) => ({
  method: "POST",
  path: "/v1/chat/completions",
  getHeader: (name: string) => headers[name],
  destroy: () => undefined,
});

describe("refusalFor names the client that went around Blackbox", () => {
  it("openai 4 (node-fetch): how to switch it", () => {
    const m = refusalFor(
      request({ "user-agent": "OpenAI/JS 4.104.0", "x-stainless-package-version": "4.104.0" }),
      "https://api.openai.com/v1/chat/completions",
      "replay",
      true,
    ).message;
    expect(m).toContain(
      "a model call (POST https://api.openai.com/v1/chat/completions) went around Blackbox: openai 4.104.0 sent it with Node's http client (node-fetch), which a replay cannot answer",
    );
    expect(m).toContain('import "openai/shims/web" before "openai"');
  });
  it("openai 3 (axios), from its user agent: upgrade", () => {
    const m = refusalFor(
      request({ "user-agent": "OpenAI/NodeJS/3.3.0" }),
      "https://api.openai.com/v1/chat/completions",
      "record",
      true,
    ).message;
    expect(m).toContain("openai 3.3.0 sent it with Node's http client (axios), which Blackbox cannot record");
    expect(m).toContain("openai 3.3.0 sends requests with axios, which Blackbox cannot see: upgrade to openai >= 4");
  });
  it("another client: send model calls with the SDKs", () => {
    const m = refusalFor(request({}), "https://api.anthropic.com/v1/messages", "record", true).message;
    expect(m).toContain("it was sent with Node's http client (node-fetch, axios, got ...)");
    expect(m).toContain("Send model calls with the official SDKs");
  });
});
