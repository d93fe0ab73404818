import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { generatedSections, updateReadme } from "../../src/docs/generate.js";
import { ROOT, sandbox } from "../support/cli.js";

const s = sandbox();
afterAll(() => s.cleanup());

describe("README", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");

  it("has the hook tables generated from the manifests (run `npm run docs` when this fails)", () => {
    expect(updateReadme(readme, generatedSections(AGENTS))).toBe(readme);
  });

  it("names every agent's verified version in the support table", () => {
    for (const a of AGENTS)
      expect(readme).toContain(`${a.manifest.displayName} ${a.manifest.hooks.verified.version}`);
  });

  it("footnotes every event row verified differently from its agent's manifest", () => {
    for (const a of AGENTS) {
      for (const [event, support] of Object.entries(a.manifest.hooks.events)) {
        if (!support.verified || !readme.includes(`| \`${event}\`:`)) continue;
        const note = readme
          .split("\n")
          .find((l) => l.startsWith(`[^${a.manifest.id}-`) && l.includes(`\`${event}\``));
        expect(note, `${a.manifest.id} ${event}`).toContain(support.verified.how);
      }
    }
  });

  it('lists every agent\'s files in "Where files go", and whether it is on by default', () => {
    for (const a of AGENTS) {
      const row = readme.split("\n").find((l) => l.startsWith(`| ${a.manifest.displayName} |`));
      expect(row, a.manifest.id).toContain(`~/${a.manifest.hooks.file.user}`);
      expect(row).toContain(a.manifest.defaultOn ? "| yes |" : "list it in `agents:`");
    }
  });

  it("states every manifest fact about blocking, hook output and notes", () => {
    for (const { manifest } of AGENTS) {
      for (const e of Object.values(manifest.hooks.events)) {
        if (e.block.can) expect(readme).toContain(e.block.effect);
        if (e.context) expect(readme).toContain(e.context.channel);
        if (e.notes) expect(readme).toContain(e.notes);
      }
      for (const h of Object.values(manifest.hooks.handlers))
        for (const f of Object.values(h.fields))
          if (f.support === "native" && f.notes) expect(readme).toContain(f.notes);
    }
  });

  it("documents the two quick-start commands that .ci/run and package.json provide", () => {
    expect(readme).toContain("npm ci && npm run example");
    expect(readme).toContain("npm test ");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.scripts.example).toBeDefined();
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8")).toContain("npm test");
  });

  it("lists only commands and flags that kanon has", async () => {
    const table = readme.slice(
      readme.indexOf("| command "),
      readme.indexOf("\n\n", readme.indexOf("| command ")),
    );
    // `kanon lock update …`, `kanon waypoint set …`: a subcommand's flags are in its own help.
    const rows = [...table.matchAll(/^\| `kanon ([a-z]+(?: [a-z]+)?)([^`]*)`/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, command = "", rest = ""] of rows) {
      const help = await s.run([...command.split(" "), "--help"]);
      expect(help.status).toBe(0);
      for (const flag of rest.match(/--[a-z-]+|-n\b/g) ?? []) expect(help.stdout).toContain(flag);
    }
  });
});
