/**
 * Gemini CLI's folder trust, read only (kanon never trusts a folder for the user): project hooks in
 * `<project>/.gemini/settings.json` run only when Gemini trusts the project folder. The rules are
 * Gemini 0.61.0's: GEMINI_CLI_TRUST_WORKSPACE, `security.folderTrust.enabled` in the user settings,
 * then the longest matching rule of trustedFolders.json (TRUST_PARENT trusts the rule's parent).
 */

import { dirname, join, relative, resolve } from "node:path";
import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import { READ_LIMIT, readBounded } from "../../model/bounded-read.js";
import type { GateCheckInput, GatedHook } from "../../model/manifest.js";

export async function geminiGatedHooks(
  input: GateCheckInput,
): Promise<{ hooks: GatedHook[]; warnings: string[] }> {
  const geminiDir = input.userPath(".gemini");
  const project = dirname(dirname(input.path));
  // The user's own settings.json: its hooks run in whatever folder is trusted; nothing to check here.
  if (resolve(dirname(input.path)) === resolve(geminiDir)) return { hooks: [], warnings: [] };
  const trust = await projectTrust(project, geminiDir, input.env);
  if (trust.trusted) return { hooks: [], warnings: trust.warnings };
  return {
    hooks: input.hooks.map((h) => ({
      gate: "gemini-folder-trust",
      hook: h.name,
      event: h.event,
      state: trust.state,
    })),
    warnings: trust.warnings,
  };
}

async function projectTrust(
  project: string,
  geminiDir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ trusted: boolean; state: string; warnings: string[] }> {
  const warnings: string[] = [];
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "false")
    return { trusted: false, state: "untrusted (GEMINI_CLI_TRUST_WORKSPACE=false)", warnings };
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return { trusted: true, state: "", warnings };
  const settings = await readJsonc(join(geminiDir, "settings.json"));
  const security = (settings as { security?: { folderTrust?: { enabled?: unknown } } } | undefined)?.security;
  if (security?.folderTrust?.enabled === false) return { trusted: true, state: "", warnings };
  const rulesPath = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(geminiDir, "trustedFolders.json");
  const rules = await readJsonc(rulesPath);
  if (rules === null) {
    warnings.push(`cannot read Gemini CLI folder trust from ${rulesPath}: not valid JSON`);
    return { trusted: false, state: "folder not trusted yet", warnings };
  }
  let longest = -1;
  let level: unknown;
  for (const [rulePath, ruleLevel] of Object.entries((rules ?? {}) as Record<string, unknown>)) {
    const effective = ruleLevel === "TRUST_PARENT" ? dirname(rulePath) : rulePath;
    const rel = relative(resolve(effective), resolve(project));
    const inside = rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
    if (inside && rulePath.length > longest) {
      longest = rulePath.length;
      level = ruleLevel;
    }
  }
  if (level === "TRUST_FOLDER" || level === "TRUST_PARENT") return { trusted: true, state: "", warnings };
  return {
    trusted: false,
    state: level === "DO_NOT_TRUST" ? "folder marked DO_NOT_TRUST" : "folder not trusted yet",
    warnings,
  };
}

/** The parsed file; undefined when it does not exist, null when it does not parse. */
async function readJsonc(path: string): Promise<unknown> {
  let text: string;
  try {
    text = readBounded(path, { limit: READ_LIMIT.destination }).bytes.toString("utf8");
  } catch {
    return undefined;
  }
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, allowEmptyContent: true });
  return errors.length > 0 ? null : value;
}
