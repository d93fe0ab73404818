// Reading the probes' logs and evaluating the assertions.

import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import type { FieldRule } from "../drivers/types.js";

export interface HookRecord {
  label: string;
  argv: string[];
  cwd: string;
  pid: number;
  ppid: number;
  started: number;
  decision: string;
  stdin: unknown;
  env: Record<string, string>;
}

export function readHookLog(path: string): HookRecord[] {
  if (!existsSync(path)) return [];
  const records: HookRecord[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as HookRecord);
    } catch {
      // A torn line is reported through the checks that miss it.
    }
  }
  return records.sort((a, b) => a.started - b.started);
}

/** First occurrence of each label, in time order. */
export function firstOccurrences(records: HookRecord[], labels: readonly string[]): string[] {
  const seen: string[] = [];
  for (const record of records) {
    if (labels.includes(record.label) && !seen.includes(record.label)) seen.push(record.label);
  }
  return seen;
}

export function countLabels(records: HookRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of records) counts[record.label] = (counts[record.label] ?? 0) + 1;
  return counts;
}

export function getPath(value: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = value;
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null || !(key in current))
      return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}

function samePath(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return a === b || real(a) === real(b);
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Returns one message per violated rule (empty when all hold). */
export function checkFields(payload: unknown, rules: Record<string, FieldRule>, project: string): string[] {
  const problems: string[] = [];
  for (const [path, rule] of Object.entries(rules)) {
    const { found, value } = getPath(payload, path);
    if (rule === "present") {
      if (!found) problems.push(`${path} missing`);
    } else if (rule === "string") {
      if (typeof value !== "string" || value === "")
        problems.push(`${path}: expected a non-empty string, got ${show(value)}`);
    } else if (rule === "project") {
      if (typeof value !== "string" || !samePath(value, project)) {
        problems.push(`${path}: expected the project directory, got ${show(value)}`);
      }
    } else if ("equals" in rule) {
      if (!isDeepStrictEqual(value, rule.equals))
        problems.push(`${path}: expected ${show(rule.equals)}, got ${show(value)}`);
    } else if (typeof value !== "string" || !value.includes(rule.includes)) {
      problems.push(`${path}: expected a string containing ${show(rule.includes)}, got ${show(value)}`);
    }
  }
  return problems;
}

export function sameDir(a: string, b: string): boolean {
  return samePath(a, b);
}

export { show };
