/** The command's tree as the CLI reads it from /proc, to pass a signal past a wrapper. */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { descendants, groupOf } from "../../../src/cli/processTree.js";

test.runIf(process.platform === "linux")(
  "descendants: the wrapper's child and grandchild, in the wrapper's group, none of ours",
  async () => {
    const wrapper = spawn("sh", ["-c", "sh -c 'sleep 30; true'; true"], { stdio: "ignore" });
    try {
      let tree = descendants(wrapper.pid!);
      for (let i = 0; i < 100 && tree.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
        tree = descendants(wrapper.pid!);
      }
      expect(tree).toHaveLength(2);
      expect(tree[0]!.ppid).toBe(wrapper.pid);
      expect(tree[1]!.ppid).toBe(tree[0]!.pid);
      // not moved to a group of their own: they stay where the terminal's signals reach them
      for (const p of tree) expect(p.pgrp).toBe(groupOf(process.pid));
      expect(descendants(wrapper.pid!).map((p) => p.pid)).not.toContain(process.pid);
    } finally {
      for (const p of descendants(wrapper.pid!)) process.kill(p.pid, "SIGKILL");
      wrapper.kill("SIGKILL");
    }
  },
);
