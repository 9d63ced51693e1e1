/** Every field of every --json schema is documented in docs/cli.md ("JSON output"). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { jsonSchemas, runSummarySchema } from "../../../src/cli/schemas.js";
import { ROOT } from "../../helpers/child.js";

const docs = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
const section = docs.slice(docs.indexOf("## JSON output"), docs.indexOf("## demo"));

describe("the --json schemas", () => {
  it("each command's schema and each of its fields are in docs/cli.md", () => {
    const schemas: Array<[string, z.ZodObject]> = [...Object.entries(jsonSchemas), ["run summary", runSummarySchema]];
    for (const [name, schema] of schemas) {
      if (name !== "run summary") expect(section, name).toContain(`\`${name} --json\``);
      for (const key of Object.keys(schema.shape)) expect(section, `${name}.${key}`).toContain(`"${key}"`);
    }
  });
});
