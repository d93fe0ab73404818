/**
 * The conformance drivers read every agent fact from the manifests: the version they install, the
 * scopes and files where hooks land, the events left out. A driver that pins its own version fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { drivers } from "../../conformance/drivers/index.js";
import type { Layout } from "../../conformance/drivers/types.js";
import { AGENTS } from "../../src/agents/index.js";
import { ROOT } from "../support/cli.js";

const manifestOf = (id: string) => AGENTS.find((a) => a.manifest.id === id)?.manifest;

const layout = {
  root: "/r",
  home: "/h",
  xdgConfig: "/h/.config",
  project: "/p",
} as Layout;

describe("conformance drivers", () => {
  it.each(drivers.map((d) => [d.id, d] as const))("%s uses its registered manifest", (_id, driver) => {
    expect(driver.manifest).toBe(manifestOf(driver.id));
    expect(driver.version).toBe(driver.manifest.hooks.verified.version);
    expect(driver.title).toBe(driver.manifest.displayName);
  });

  it.each(drivers.map((d) => [d.id, d] as const))("%s pins no version of its own", (_id, driver) => {
    const text = readFileSync(join(ROOT, "conformance/drivers", `${driver.id}.ts`), "utf8");
    const versions = [...text.matchAll(/\b\d+\.\d+\.\d+\b/g)].map((m) => m[0]);
    expect(versions, `a version in conformance/drivers/${driver.id}.ts: state it in the manifest`).toEqual(
      [],
    );
  });

  it("puts the hook files where the manifests say", () => {
    const files = Object.fromEntries(
      drivers.map((d) => [d.id, [...d.hookFiles(layout, "user"), ...d.hookFiles(layout, "project")]]),
    );
    expect(files).toEqual({
      claude: ["/h/.claude/settings.json", "/p/.claude/settings.json"],
      codex: ["/h/.codex/hooks.json", "/p/.codex/hooks.json"],
      gemini: ["/h/.gemini/settings.json", "/p/.gemini/settings.json"],
      // Kimi Code has no project hooks; its home is KIMI_CODE_HOME, outside HOME (homeEnv).
      kimi: ["/r/kimi-home/config.toml"],
      opencode: [
        join(layout.xdgConfig, "opencode/plugins/kanon-hooks.js"),
        "/p/.opencode/plugins/kanon-hooks.js",
      ],
    });
    for (const d of drivers) expect(d.scopes).toEqual(d.id === "kimi" ? ["user"] : ["user", "project"]);
  });

  it("leaves out the events the manifests lack (Notification for Codex and OpenCode)", () => {
    const omits = Object.fromEntries(drivers.map((d) => [d.id, d.omittedEvents.includes("Notification")]));
    expect(omits).toEqual({ claude: false, codex: true, gemini: false, kimi: false, opencode: true });
    for (const d of drivers) {
      for (const e of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"])
        expect(d.omittedEvents).not.toContain(e);
    }
  });
});
