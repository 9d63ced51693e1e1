/**
 * Which run was forked from which: the fork forest across the loaded runs (each run under
 * the run its parentId names) and, read off the same forest, the children forked at each
 * step of a parent. The Runs tab draws the forest; the timeline and the step detail mark
 * and link the fork points.
 */
import type { RunMeta } from "../model.js";

export interface TreeNode {
  run: RunMeta;
  children: TreeNode[];
}

/** The fork forest: each run under the loaded run its parentId names (first one with that id). */
export function forkForest(runs: readonly RunMeta[]): TreeNode[] {
  const nodes = runs.map((run) => ({ run, children: [] as TreeNode[] }));
  const byId = new Map<string, TreeNode>();
  for (const n of nodes) if (!byId.has(n.run.id)) byId.set(n.run.id, n);
  const roots: TreeNode[] = [];
  for (const n of nodes) {
    const parent = n.run.parentId !== null ? byId.get(n.run.parentId) : undefined;
    // a cycle of parentIds (edited cassettes) would hide its runs: they become roots
    if (parent && parent !== n && !isAbove(n, parent)) parent.children.push(n);
    else roots.push(n);
  }
  for (const n of nodes) n.children.sort((a, b) => (a.run.forkAt ?? 0) - (b.run.forkAt ?? 0));
  return roots;
}

function isAbove(node: TreeNode, other: TreeNode): boolean {
  const stack = [...node.children];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n === other) return true;
    stack.push(...n.children);
  }
  return false;
}

/** Where the runs of a forest sit in it: each child's parent, and each parent's children by the step they forked at. */
export interface ForkIndex {
  /** The run key's parent in the forest (a loaded run), if it has one. */
  parent: ReadonlyMap<number, RunMeta>;
  /** The run key's children, by the step of it each one forked at (children whose fork step is unknown are left out). */
  forksAt: ReadonlyMap<number, ReadonlyMap<number, readonly RunMeta[]>>;
}

const NO_FORKS: ReadonlyMap<number, readonly RunMeta[]> = new Map();

export function forkIndex(forest: readonly TreeNode[]): ForkIndex {
  const parent = new Map<number, RunMeta>();
  const forksAt = new Map<number, Map<number, RunMeta[]>>();
  const stack = [...forest];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const c of node.children) {
      stack.push(c);
      parent.set(c.run.key, node.run);
      const at = c.run.forkAt;
      if (at === null) continue;
      let steps = forksAt.get(node.run.key);
      if (!steps) forksAt.set(node.run.key, (steps = new Map()));
      steps.set(at, [...(steps.get(at) ?? []), c.run]);
    }
  }
  return { parent, forksAt };
}

/** The children forked at each step of run `key` (none when it has no children). */
export function forksOf(index: ForkIndex, key: number): ReadonlyMap<number, readonly RunMeta[]> {
  return index.forksAt.get(key) ?? NO_FORKS;
}
