/**
 * What an import adds to an existing Kanon home, decided against the files already there (shared by
 * `kanon import --merge` and the UI's import plan): instruction texts the home lacks, and for each
 * skill whether the home's `skills/<name>/` is missing, the same or different.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { type InstructionFile, instructionPath, type KanonConfig } from "../model/config.js";
import type { TreeFile } from "../model/source.js";
import { hashSkillFiles } from "../providers/hash.js";
import { readTree } from "../providers/tree.js";
import { realOrSelf } from "../source/home-files.js";
import type { HomeFile, Imported } from "./read.js";
import type { ItemMerge, SkillMerge } from "./yaml.js";

export interface NewInstruction {
  entry: InstructionFile;
  file: HomeFile;
}

export interface SkillAgainstHome extends SkillMerge {
  /** The imported files, relative to the home (`skills/<name>/…`). */
  files: HomeFile[];
  /** The files the home has in skills/<name>/ (relative to that folder); empty when missing. */
  ours: TreeFile[];
}

export interface ItemAgainstHome extends ItemMerge {
  /** The imported file, relative to the home (`commands/<name>.md`). */
  file: HomeFile;
}

export interface HomeComparison {
  instructions: NewInstruction[];
  skills: SkillAgainstHome[];
  /** Commands and subagents, each against the home's file of its name. */
  items: ItemAgainstHome[];
}

export async function compareWithHome(
  home: string,
  existing: KanonConfig,
  imported: Imported,
): Promise<HomeComparison> {
  // Skills: the same content is already there; different content is for the caller to resolve.
  const bySkill = new Map<string, HomeFile[]>();
  for (const f of imported.files.filter((x) => x.rel.startsWith("skills/"))) {
    const name = f.rel.split("/")[1]!;
    bySkill.set(name, [...(bySkill.get(name) ?? []), f]);
  }
  const skills: SkillAgainstHome[] = [];
  for (const [name, files] of bySkill) {
    const targets = imported.config.skills.find((e) => e.name === name)?.targets;
    const dir = join(home, "skills", name);
    if (!existsSync(dir)) {
      skills.push({ name, targets, home: "missing", files, ours: [] });
      continue;
    }
    const ours = await readTree(dir, { followFileSymlinksWithin: realOrSelf(home) });
    const theirs = files.map((f) => ({ ...f, rel: f.rel.slice(`skills/${name}/`.length) }));
    const same = hashSkillFiles(ours) === hashSkillFiles(theirs);
    skills.push({ name, targets, home: same ? "same" : "differs", files, ours });
  }

  // Instructions: a text the home already has is kept; a new one gets a free file name.
  const homeTexts = existing.instructions.files.map((f) => {
    try {
      return readBounded(join(home, instructionPath(f)), { limit: READ_LIMIT.home })
        .bytes.toString("utf8")
        .trim();
    } catch {
      return null;
    }
  });
  const instructions: NewInstruction[] = [];
  for (const entry of imported.config.instructions.files) {
    const file = imported.files.find((f) => f.rel === instructionPath(entry))!;
    const text = Buffer.from(file.content).toString("utf8");
    if (homeTexts.includes(text.trim())) continue;
    let rel = file.rel;
    for (let i = 2; existsSync(join(home, rel)); i++) rel = file.rel.replace(/\.md$/, `-${i}.md`);
    instructions.push({
      entry: typeof entry === "string" ? rel : { ...entry, path: rel },
      file: { ...file, rel },
    });
  }
  return { instructions, skills, items: compareItems(home, imported) };
}

/** Each imported command and subagent file against the home's: missing, the same bytes, or different. */
function compareItems(home: string, imported: Imported): ItemAgainstHome[] {
  const out: ItemAgainstHome[] = [];
  for (const [kind, folder, entries] of [
    ["command", "commands", imported.config.commands],
    ["subagent", "agents", imported.config.subagents],
  ] as const) {
    for (const file of imported.files.filter((f) => f.rel.startsWith(`${folder}/`))) {
      const name = file.rel.slice(folder.length + 1, -".md".length);
      const targets = entries?.find((e) => e.name === name)?.targets;
      let ours: Buffer | null = null;
      try {
        ours = readBounded(join(home, file.rel), { limit: READ_LIMIT.home }).bytes;
      } catch {}
      const state = ours === null ? "missing" : ours.equals(file.content) ? "same" : "differs";
      out.push({ kind, name, targets, home: state, file });
    }
  }
  return out;
}
