/** Off: Blackbox is not there. The doors pass every call on (route() names no provider) and wrapped tools just run. */
import type { SessionMode } from "./mode.js";

export const offMode: SessionMode = {
  name: "off",
  writes: false,
  haltsOnError: false,
  replaying: () => false,
  forwardsOther: () => true,
  model: (call) => call.forward(call.request, call.signal),
  tool: async (_name, _input, run) => run(),
  end: () => {},
};
