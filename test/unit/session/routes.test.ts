import { expect, test } from "vitest";
import { ProviderRoutes } from "../../../src/session/routes.js";

test("a base URL written with an upper-case host or a default port routes the URLs a parsed request has, and the ones the SDK writes", () => {
  const routes = new ProviderRoutes(
    { openai: ["https://Gateway.Example.com:443/v1/"] },
    { ANTHROPIC_BASE_URL: "http://LOCALHOST:8080" },
  );
  // as the door sees them (the URL parsed) ...
  expect(routes.route(new URL("http://LOCALHOST:8080/v1/messages").href)).toBe("anthropic");
  expect(routes.route(new URL("https://Gateway.Example.com:443/v1/chat/completions").href)).toBe("openai");
  // ... and as the SDK writes them from its baseURL (the hook's fetch, bb.fetch)
  expect(routes.route("http://LOCALHOST:8080/v1/messages")).toBe("anthropic");
  expect(routes.route("https://Gateway.Example.com:443/v1/chat/completions")).toBe("openai");
  // other hosts, ports and paths are still not routed
  expect(routes.route("http://localhost:8081/v1/messages")).toBeUndefined();
  expect(routes.route("https://gateway.example.com/v2/chat/completions")).toBeUndefined();
  expect(routes.originsOn("localhost")).toEqual(["http://localhost:8080"]);
});

test("a base URL that is not a URL is kept as given and routes nothing that is", () => {
  const routes = new ProviderRoutes({ anthropic: ["not a url"] }, {});
  expect(routes.route("http://localhost:8080/v1/messages")).toBeUndefined();
  expect(routes.route("https://api.anthropic.com/v1/messages")).toBe("anthropic");
});

test("chat completions and the Responses API share every OpenAI base URL: the path says which", () => {
  const routes = new ProviderRoutes(
    { openai: ["https://gateway.example.com/v1"] },
    { OPENAI_BASE_URL: "http://h:1/v1" },
  );
  // twice: a URL routed by path is remembered, and routed the same
  for (const base of [1, 2].flatMap(() => [
    "https://api.openai.com/v1",
    "https://gateway.example.com/v1",
    "http://h:1/v1",
  ])) {
    expect(routes.route(`${base}/chat/completions`)).toBe("openai");
    expect(routes.route(`${base}/responses`)).toBe("openai-responses");
    // another call under either API is the service's other call, passed through in record, refused in replay
    expect(routes.route(`${base}/responses/resp_1`)).toBe("openai");
    expect(routes.route(`${base}/models`)).toBe("openai");
  }
  expect(routes.route("https://other.example.com/v1/responses")).toBeUndefined();
});
