/** The README and the docs/ pages: what they state that the code decides, and their links. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { AGENTS } from "../../src/agents/index.js";
import { generatedSections, updateGenerated } from "../../src/docs/generate.js";
import { readDocPages } from "../../src/docs/pages.js";
import { ROOT, sandbox } from "../support/cli.js";

const s = sandbox();
afterAll(() => s.cleanup());

const pages = readDocPages(ROOT);
const readme = pages["README.md"]!;
/** A fenced block, indented or not: no links or headings in it. */
const FENCED = /^([ \t]*)```[\s\S]*?^\1```/gm;
/** The page of the tables generated from the agents' manifests. */
const agents = pages["docs/agents.md"]!;

describe("the docs", () => {
  it("have the tables generated from the manifests (run `npm run docs` when this fails)", () => {
    expect(updateGenerated(pages, generatedSections(AGENTS))).toEqual(pages);
  });

  it("names every agent's verified version in the support table", () => {
    for (const a of AGENTS)
      expect(agents).toContain(`${a.manifest.displayName} ${a.manifest.hooks.verified.version}`);
  });

  it("footnotes every event row verified differently from its agent's manifest", () => {
    for (const a of AGENTS) {
      for (const [event, support] of Object.entries(a.manifest.hooks.events)) {
        if (!support.verified || !agents.includes(`| \`${event}\`:`)) continue;
        const note = agents
          .split("\n")
          .find((l) => l.startsWith(`[^${a.manifest.id}-`) && l.includes(`\`${event}\``));
        expect(note, `${a.manifest.id} ${event}`).toContain(support.verified.how);
      }
    }
  });

  it('lists every agent\'s files in "Where files go", and whether it is on by default', () => {
    for (const a of AGENTS) {
      const row = agents.split("\n").find((l) => l.startsWith(`| ${a.manifest.displayName} |`));
      expect(row, a.manifest.id).toContain(`~/${a.manifest.hooks.file.user}`);
      expect(row).toContain(a.manifest.defaultOn ? "| yes |" : "list it in `agents:`");
    }
  });

  it("states every manifest fact about blocking, hook output and notes", () => {
    for (const { manifest } of AGENTS) {
      for (const e of Object.values(manifest.hooks.events)) {
        if (e.block.can) expect(agents).toContain(e.block.effect);
        if (e.context) expect(agents).toContain(e.context.channel);
        if (e.notes) expect(agents).toContain(e.notes);
      }
      for (const h of Object.values(manifest.hooks.handlers))
        for (const f of Object.values(h.fields))
          if (f.support === "native" && f.notes) expect(agents).toContain(f.notes);
    }
  });

  it("documents the two quick-start commands that .ci/run and package.json provide", () => {
    expect(readme).toContain("npm ci && npm run example");
    expect(readme).toContain("npm test ");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.scripts.example).toBeDefined();
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8")).toContain("npm test");
  });

  it("says what the example home holds", () => {
    const example = join(ROOT, "examples/home");
    const yaml = parseYaml(readFileSync(join(example, "kanon.yaml"), "utf8"));
    const files = (dir: string) => readdirSync(join(example, dir)).filter((f) => !f.startsWith("."));
    const said = readme.slice(
      readme.indexOf("`npm run example` renders"),
      readme.indexOf(")", readme.indexOf("(instructions")),
    );
    const count = (n: number, one: string, many: string) =>
      n === 1 ? `a ${one}` : `${["no", "", "two", "three", "four", "five", "six"][n]} ${many}`;
    for (const part of [
      count(files("skills").length, "skill", "skills"),
      count(files("commands").length, "command", "commands"),
      count(files("agents").length, "subagent", "subagents"),
      count(Object.keys(yaml.mcp.servers).length, "MCP server", "MCP servers"),
      count(yaml.hooks.length, "hook", "hooks"),
    ])
      expect(said.replace(/\s+/g, " ")).toContain(part);
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

  it("lists every command and every flag that kanon's help prints", async () => {
    const table = readme.slice(
      readme.indexOf("Global flags"),
      readme.indexOf("\n\n", readme.indexOf("| command ")),
    );
    /** The lines under a help's `name:` heading (`Options:`, not `Global Options:`). */
    const under = (text: string, name: string) =>
      new RegExp(`^${name}:\\n((?: .*\\n)*)`, "m").exec(text)?.[1]?.split("\n") ?? [];
    /** A command's own flags (its Options, not the global ones), and its subcommands. */
    const help = async (command: string[]) => {
      const text = (await s.run([...command, "--help"])).stdout;
      return {
        flags: under(text, "Options")
          .flatMap((l) => l.match(/--[a-z-]+/g) ?? [])
          .filter((f) => f !== "--help"),
        commands: under(text, "Commands").flatMap((l) => /^ {2}([a-z]+)/.exec(l)?.[1] ?? []),
      };
    };
    const missing: string[] = [];
    const top = await help([]);
    for (const flag of top.flags) if (!table.includes(`\`${flag}`)) missing.push(`kanon ${flag}`);
    for (const command of top.commands) {
      // A row names the command in its first cell (`kanon pull` / `kanon push …`).
      const rows = table.split("\n").filter((l) => new RegExp(`^\\| [^|]*\`kanon ${command}[\` ]`).test(l));
      if (rows.length === 0) missing.push(`kanon ${command}`);
      const own = await help([command]);
      const subs = await Promise.all(own.commands.map((sub) => help([command, sub])));
      for (const flag of [...own.flags, ...subs.flatMap((h) => h.flags)])
        if (!rows.some((r) => r.includes(flag))) missing.push(`kanon ${command} ${flag}`);
    }
    expect(missing).toEqual([]);
  });

  it("keep the README short: a guide, with the rest under docs/", () => {
    // A newcomer reads it in a few minutes; a topic of its own is a page of docs/.
    expect(readme.split("\n").length).toBeLessThan(300);
    for (const file of Object.keys(pages).filter((f) => f !== "README.md"))
      expect(readme, `the README's index links ${file}`).toContain(`](${file})`);
  });

  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const [file, text] of Object.entries(pages)) {
      const prose = text.replace(FENCED, "").replace(/`[^`\n]*`/g, "");
      for (const [, target = ""] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue; // https://…
        const [path = "", anchor] = target.split("#");
        const to = path === "" ? file : join(dirname(file), path);
        if (!existsSync(join(ROOT, to))) broken.push(`${file}: ${target} (no ${to})`);
        else if (anchor !== undefined && !anchors(readFileSync(join(ROOT, to), "utf8")).includes(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const prose = markdown.replace(FENCED, "");
  return [...prose.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading = ""]) => {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    return n === 0 ? slug : `${slug}-${n}`;
  });
}

describe("npm run docs", () => {
  const block = (name: string, body: string) =>
    `<!-- BEGIN GENERATED: ${name} (npm run docs) -->\n${body}\n<!-- END GENERATED: ${name} -->`;

  it("rewrites a generated block on whichever page holds it, by name", () => {
    const pages = { "README.md": "# kanon\n", "docs/a.md": `# A\n\n${block("t", "old")}\n\ntext\n` };
    expect(updateGenerated(pages, { t: "new" })).toEqual({
      "README.md": "# kanon\n",
      "docs/a.md": `# A\n\n${block("t", "new")}\n\ntext\n`,
    });
    const moved = { "README.md": `${block("t", "old")}\n`, "docs/a.md": "# A\n" };
    expect(updateGenerated(moved, { t: "new" })["README.md"]).toBe(`${block("t", "new")}\n`);
  });

  it("refuses a block of an unknown name, one without its END, and a section on no page", () => {
    expect(() => updateGenerated({ "docs/a.md": block("zz", "") }, {})).toThrow(
      'docs/a.md: unknown generated section "zz"',
    );
    expect(() =>
      updateGenerated({ "docs/a.md": "<!-- BEGIN GENERATED: t (npm run docs) -->\nold\n" }, { t: "new" }),
    ).toThrow('docs/a.md: generated section "t" has no END marker');
    expect(() => updateGenerated({ "README.md": "# kanon\n" }, { t: "new" })).toThrow(
      'no docs page has the generated section "t"',
    );
  });
});
