// Re-records the committed cassettes against the repository's fake provider (scripted model
// replies on loopback), running the suite exactly as a user updates cassettes:
//   npx tsx examples/vitest-suite/record.ts
// Against the real API it is `BLACKBOX_RECORD=all npx vitest run examples/vitest-suite`
// with ANTHROPIC_API_KEY set.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { anthropicMessage, startFakeProvider } from "../../test/helpers/fakeProvider.js";

const fake = await startFakeProvider();
fake.enqueue(
  // books the sunny city (the suite's tests run in order)
  {
    json: anthropicMessage({
      text: "Let me check the weather in both cities.",
      toolCalls: [
        { name: "get_weather", input: { city: "Lisbon" } },
        { name: "get_weather", input: { city: "Porto" } },
      ],
    }),
  },
  { json: anthropicMessage({ toolCalls: [{ name: "book_hotel", input: { city: "Lisbon", nights: 2 } }] }) },
  { json: anthropicMessage({ text: "Booked 2 nights in Lisbon (HTL-LIS-2): sunny and 24°C." }) },
  // books nothing when it rains
  { json: anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Porto" } }] }) },
  { json: anthropicMessage({ text: "Porto expects rain (16°C), so I booked nothing." }) },
);
try {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  // spawn, not spawnSync: the fake provider answers from this process's event loop
  const child = spawn("npx", ["vitest", "run", "examples/vitest-suite"], {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      BLACKBOX_RECORD: "all",
      ANTHROPIC_BASE_URL: fake.anthropicUrl,
      ANTHROPIC_API_KEY: "sk-ant-fake-key-for-recording",
    },
  });
  process.exitCode = await new Promise<number>((done) => child.on("close", (code) => done(code ?? 1)));
} finally {
  await fake.close();
}
