/** The conformance Kanon home's hooks, as the checks need them (read straight from its kanon.yaml). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface NeutralHook {
  name: string;
  event: string;
  matcher?: string;
  command: string;
  args?: string[];
  timeout?: number;
  targets?: string[];
}

export function readHooks(kanonHome: string): NeutralHook[] {
  const config = parse(readFileSync(join(kanonHome, "kanon.yaml"), "utf8")) as {
    hooks?: NeutralHook[];
  } | null;
  return config?.hooks ?? [];
}
