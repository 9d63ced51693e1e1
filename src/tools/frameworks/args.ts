/** The model's arguments as a runner hands them to a tool: a JSON string (the wire's) is recorded as the JSON it holds. */
export function modelArguments(x: unknown): unknown {
  if (typeof x !== "string") return x;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return x;
  }
}
