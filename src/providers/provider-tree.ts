/**
 * Reading a materialised provider root (reference §3.3): every direct subdirectory not starting with `.`
 * is a skill and must hold a regular SKILL.md; a symlink anywhere that could be copied is an error
 * (kanon copies these files into agent directories, and a link could point anywhere); files at the top
 * level and dot entries are ignored and never copied.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { osErrorText } from "../model/fs-errors.js";
import type { TreeFile } from "../model/source.js";
import { compareBytes, goQuote } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { hashProvider } from "./hash.js";
import { readTree } from "./tree.js";

export interface ProviderChild {
  name: string;
  /** Every regular file of the skill directory, lexical walk order, `.git` skipped. */
  files: TreeFile[];
}

export interface ProviderTree {
  /** Sorted by name. */
  children: ProviderChild[];
  /** `content_sha256` of the tree. */
  hash: string;
}

/** `lstat <path>: no such file or directory`, as Go words it. */
function osError(op: string, path: string, e: unknown): string {
  return `${op} ${path}: ${osErrorText(e)}`;
}

/**
 * Validate, read and hash a provider root. Errors carry the reference's wording, e.g.
 * `git skill provider "p" child "c": skill "c" source contains symlink "scripts/run"`.
 */
export async function readProviderTree(provider: string, root: string): Promise<ProviderTree> {
  const p = `git skill provider ${goQuote(provider)}`;
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(root);
  } catch (e) {
    throw new KanonError(`${p}: ${osError("lstat", root, e)}`);
  }
  if (st.isSymbolicLink()) throw new KanonError(`${p} root is a symlink`);
  if (!st.isDirectory()) throw new KanonError(`${p} root is not a directory`);

  const entries = (await readdir(root, { withFileTypes: true })).sort((a, b) => compareBytes(a.name, b.name));
  const children: ProviderChild[] = [];
  let special: string | undefined;
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith(".")) continue;
    if (entry.isSymbolicLink()) throw new KanonError(`${p} contains symlink ${goQuote(name)}`);
    if (!entry.isDirectory()) continue;
    // A render name is `<provider>:<child>`: one path component on every platform kanon writes to.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
    if (/[\\\x00-\x1f\x7f]/.test(name)) {
      throw new KanonError(`${p} has invalid skill directory name ${goQuote(name)}`);
    }
    const c = `${p} child ${goQuote(name)}: skill ${goQuote(name)} source`;
    const dir = join(root, name);
    const skillMd = join(dir, "SKILL.md");
    let md: Awaited<ReturnType<typeof lstat>>;
    try {
      md = await lstat(skillMd);
    } catch (e) {
      throw new KanonError(`${c} missing SKILL.md: ${osError("lstat", skillMd, e)}`);
    }
    if (md.isSymbolicLink()) throw new KanonError(`${c} contains symlink "SKILL.md"`);
    if (!md.isFile()) throw new KanonError(`${c} SKILL.md is not a regular file`);
    const files = await readTree(dir, {
      onSymlink: (rel) => {
        throw new KanonError(`${c} contains symlink ${goQuote(rel)}`);
      },
      onSpecial: (rel) => {
        special ??= `skill ${goQuote(name)} source contains non-regular file ${goQuote(rel)}`;
      },
    });
    children.push({ name, files });
  }
  if (special !== undefined) throw new KanonError(special);
  if (children.length === 0) throw new KanonError(`${p} contains no skill directories`);
  return { children, hash: hashProvider(children) };
}

/**
 * The children to render: without `include`, every child not excluded (name order); with `include`,
 * the include order minus excluded ones. An unknown name is an error.
 */
export function selectChildren(
  provider: string,
  children: readonly ProviderChild[],
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): ProviderChild[] {
  const byName = new Map(children.map((c) => [c.name, c]));
  const excluded = new Set<string>();
  for (const name of exclude ?? []) {
    if (!byName.has(name)) {
      throw new KanonError(
        `git skill provider ${goQuote(provider)} references unknown excluded skill ${goQuote(name)}`,
      );
    }
    excluded.add(name);
  }
  if (!include || include.length === 0) return children.filter((c) => !excluded.has(c.name));
  const selected: ProviderChild[] = [];
  for (const name of include) {
    const child = byName.get(name);
    if (!child) {
      throw new KanonError(
        `git skill provider ${goQuote(provider)} references unknown included skill ${goQuote(name)}`,
      );
    }
    if (!excluded.has(name)) selected.push(child);
  }
  return selected;
}
