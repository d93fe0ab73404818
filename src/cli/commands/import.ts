/** `kanon import` (alias `add`): the machine's agent settings → a Kanon home (reference §1.3.8, §5.8). */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { AGENT_IDS } from "../../agents/index.js";
import { secretRefs } from "../../core/secrets.js";
import { ChangedError } from "../../destination/apply.js";
import { applyImport } from "../../destination/apply-plan.js";
import type { Change } from "../../destination/plan.js";
import { addSecrets, secretStorePath } from "../../destination/secrets.js";
import { compareWithHome } from "../../import/home.js";
import { type MachineFlags, readMachine } from "../../import/machine.js";
import { homeChange } from "../../import/plan.js";
import type { HomeFile, Imported } from "../../import/read.js";
import { configYaml, mergeConfigYaml, readableHome } from "../../import/yaml.js";
import { READ_LIMIT, readBounded } from "../../model/bounded-read.js";
import { wordList } from "../../model/text.js";
import { KanonError } from "../../model/types.js";
import { ConfigMissingError, loadConfig } from "../../source/load.js";
import { err, type GlobalFlags, type Io, isTerminal, out, readLine, warn } from "../context.js";
import { machineOf, pathsOf, rootOf, scopeOf, stateDirOf } from "../pipeline.js";

export interface ImportFlags extends MachineFlags {
  write?: boolean;
  /** --git: make a new home a git repository without asking; --no-git: do not offer to. */
  git?: boolean;
  force?: boolean;
  merge?: boolean;
  ui?: boolean;
}

export async function importCommand(flags: GlobalFlags, opts: ImportFlags, io: Io): Promise<void> {
  if (opts.ui) {
    if (opts.write) throw new KanonError("use only one of --ui or --write");
    if (opts.merge) throw new KanonError("use only one of --ui or --merge");
    const { uiCommand } = await import("./ui.js");
    return uiCommand(flags, { ...opts, mode: "import" }, io);
  }
  const paths = pathsOf(flags, io);
  const imported = await readMachine(machineOf(flags, io), opts);
  warn(io, imported.warnings);
  if (opts.merge) return mergeCommand(flags, paths, imported, opts, io);
  if (foundNothing(imported)) {
    const scope = scopeOf(flags, io);
    const where = scope.kind === "project" ? `in ${scope.dir}` : "on this machine";
    err(
      io,
      `Nothing to import: no instructions, skills, commands, subagents, MCP servers or hooks of ${readAgents(flags)} were found ${where}${opts.write ? "; nothing was written" : ""}.\n`,
    );
    if (opts.write) return;
  }

  const yaml = configYaml(imported.config);
  if (!opts.write) {
    out(io, yaml);
    return;
  }
  if (existsSync(paths.config) && !opts.force)
    throw new KanonError(`${paths.config} already exists; re-run import with --force to replace it`);
  readableHome(yaml, paths.config);
  storeSecrets(io, imported.secrets);
  writeImport(flags, io, [
    textChange(paths.config, yaml),
    ...imported.files.map((f) => homeFile(paths.home, f)),
  ]);
  out(io, `Wrote imported config to ${paths.config}\n`);
  await offerGit(paths.home, opts.git, io);
}

/**
 * A home that is not a git repository yet is offered the set-up `kanon init` does (a .gitignore,
 * git init, a first commit): asked on a terminal, done with --git, told how otherwise. Not done
 * unasked: kanon undo takes an import back, but not a repository made for it.
 */
async function offerGit(home: string, git: boolean | undefined, io: Io): Promise<void> {
  if (git === false || existsSync(join(home, ".git"))) return;
  let yes = git === true;
  if (git === undefined) {
    if (!isTerminal(io.stdout) || io.stdin.isTTY !== true) {
      out(
        io,
        `${home} is not a git repository yet: kanon import --write --git makes it one as kanon init does, or run git init there and commit, to keep it for your other machines.\n`,
      );
      return;
    }
    out(
      io,
      `${home} is not a git repository. Make it one, as kanon init does (git init, a first commit)? [Y/n] `,
    );
    const answer = (await readLine(io.stdin)).trim().toLowerCase();
    yes = answer === "" || answer === "y" || answer === "yes";
    if (!yes) return;
  }
  const { setUpGit } = await import("./init.js");
  out(
    io,
    await setUpGit(home, io, {
      message: "Import this machine's agent settings",
      done: `Made ${home} a git repository and committed the import (git -C ${home} remote add origin <url> && kanon push keeps it for your other machines).`,
    }),
  );
}

/** The agents import read, for messages: `codex, claude, opencode, gemini and kimi`. */
function readAgents(flags: GlobalFlags): string {
  const ids = flags.agent && flags.agent !== "all" ? [flags.agent] : [...AGENT_IDS];
  return wordList(ids, "or");
}

function foundNothing({ config: c, files }: Imported): boolean {
  return (
    files.length === 0 &&
    c.instructions.files.length === 0 &&
    c.skills.length === 0 &&
    Object.keys(c.mcp.servers).length === 0 &&
    c.hooks.length === 0 &&
    c.agents === undefined
  );
}

/**
 * The secrets the import moved out of kanon.yaml (`--secret-policy store`), into this machine's store
 * before the home is written: the home's references then always have their values here.
 */
function storeSecrets(io: Io, secrets: Readonly<Record<string, string>>): void {
  const stored = addSecrets(secretStorePath(io.env, io.userHome), secrets);
  if (stored) out(io, `${stored}\n`);
}

/** `--merge`: add what the home lacks, report what differs, replace it only with --force. */
async function mergeCommand(
  flags: GlobalFlags,
  paths: ReturnType<typeof pathsOf>,
  imported: Imported,
  opts: ImportFlags,
  io: Io,
): Promise<void> {
  const loaded = await loadConfig(paths, AGENT_IDS).catch((e) => {
    if (e instanceof ConfigMissingError)
      throw new KanonError(
        `${paths.config} does not exist; --merge adds to an existing home (use --write to create one)`,
      );
    throw e;
  });
  warn(io, loaded.warnings);
  const existing = loaded.config;
  const force = !!opts.force;
  const home = await compareWithHome(paths.home, existing, imported);
  const files: HomeFile[] = home.instructions.map((i) => i.file);
  const conflicts: string[] = [];
  for (const sk of home.skills) {
    if (sk.home === "missing") files.push(...sk.files);
    if (sk.home !== "differs") continue;
    conflicts.push(
      `skill ${JSON.stringify(sk.name)} differs from skills/${sk.name}/ in the Kanon home${force ? "; replaced by the imported one" : "; kept the home's (--force replaces it)"}`,
    );
    if (force) files.push(...sk.files);
  }
  for (const item of home.items) {
    if (item.home === "missing") files.push(item.file);
    if (item.home !== "differs") continue;
    conflicts.push(
      `${item.kind} ${JSON.stringify(item.name)} differs from ${item.file.rel} in the Kanon home${force ? "; replaced by the imported one" : "; kept the home's (--force replaces it)"}`,
    );
    if (force) files.push(item.file);
  }

  // The bytes merged into: kanon.yaml is written only if it still holds them (checked at the rename).
  const original = readBounded(paths.config, { limit: READ_LIMIT.home }).bytes;
  const merged = mergeConfigYaml({
    text: original.toString("utf8"),
    existing,
    imported: imported.config,
    instructions: home.instructions.map((i) => i.entry),
    skills: home.skills,
    items: home.items,
    force,
  });
  for (const c of [...conflicts, ...merged.conflicts]) err(io, `conflict: ${c}\n`);
  if (!opts.write) {
    out(io, merged.text);
    return;
  }
  if (merged.changes.length === 0 && files.length === 0) {
    out(io, "Nothing to import: the Kanon home already has everything found.\n");
    return;
  }
  readableHome(merged.text, paths.config);
  const used = new Set(secretRefs(merged.text));
  storeSecrets(io, Object.fromEntries(Object.entries(imported.secrets).filter(([n]) => used.has(n))));
  const config = textChange(paths.config, merged.text, original);
  writeImport(flags, io, [
    ...(config.after && !original.equals(config.after) ? [config] : []),
    ...files.map((f) => homeFile(paths.home, f)),
  ]);
  for (const c of merged.changes) out(io, `${c}\n`);
  out(io, `Merged imported config into ${paths.config}\n`);
}

/**
 * All files at once or none: the same staged writes as apply, each written only if it is still what
 * was read (a file that appeared or changed meanwhile stops the import; kanon.yaml, first, stops it
 * before anything is written), with a history entry that `kanon undo` takes back.
 */
function writeImport(flags: GlobalFlags, io: Io, changes: Change[]): void {
  const scope = scopeOf(flags, io);
  try {
    const removed = applyImport(stateDirOf(scope, io), rootOf(scope), changes, io.fs);
    if (removed > 0)
      out(io, `Removed ${removed} temporary file(s) left by an interrupted import or apply.\n`);
  } catch (e) {
    if (e instanceof ChangedError && e.written.length === 0)
      throw new KanonError(
        `${e.path} changed while kanon was importing; nothing was written, run the command again`,
      );
    throw e;
  }
}

function homeFile(home: string, f: HomeFile): Change {
  return newFile(join(home, f.rel), f.content, f.mode);
}

/** kanon.yaml: a merge keeps its mode, a new one is 0644. */
function textChange(path: string, text: string, before?: Buffer): Change {
  const mode = before ? statSync(path).mode & 0o7777 : 0o644;
  return newFile(path, Buffer.from(text, "utf8"), mode, before);
}

/**
 * import --write and --merge write the imported mode; what is there now (`before`, when the caller
 * read it already) is saved for `kanon undo`.
 */
function newFile(path: string, content: Uint8Array, mode: number, before?: Buffer): Change {
  const st = statSync(path, { throwIfNoEntry: false });
  return homeChange({
    path,
    action: st ? "update" : "create",
    before: before ?? (st?.isFile() ? readBounded(path, { limit: READ_LIMIT.home }).bytes : null),
    after: content,
    mode,
    beforeMode: st ? st.mode & 0o7777 : null,
  });
}
