/**
 * Every command example of the docs runs, as written, in a throwaway HOME: kanon in this process
 * (test/support/cli.ts), git and the other commands ALLOWED with /bin/sh. How an example is written
 * and run: test/support/doc-examples.ts and docs/development.md ("The docs").
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDocPages } from "../../src/docs/pages.js";
import { ROOT, runKanon, sandboxEnv } from "../support/cli.js";
import {
  type Chain,
  type Command,
  type Example,
  readExamples,
  type Setup,
  type Step,
  type Word,
} from "../support/doc-examples.js";

/** The remote the docs publish a Kanon home to: a bare repository of the sandbox. */
const REMOTE = "git@github.com:me/kanon-home.git";
/** What the docs show for the user's home directory. */
const SHOWN_HOME = "/home/me";
/** The sandbox's editor, which changes nothing, and a made-up token for the secrets examples. */
const ENV = { EDITOR: "true", GITHUB_TOKEN: "ghp_madeUpForTheDocsExamples" };

interface Machine {
  home: string;
  cwd: string;
}

/** One chain's sandbox: two machines' HOMEs (the second made when an example moves to it), a remote. */
class ExampleSandbox {
  readonly base = mkdtempSync(join(tmpdir(), "kanon-docs-"));
  readonly remote = join(this.base, "remote/kanon-home.git");
  private readonly machines: Machine[] = [];
  private current = 0;

  constructor() {
    this.machine(0);
  }

  /** Machine `n`: a HOME with a project folder that is a git repository, the working directory. */
  private machine(n: number): Machine {
    if (!this.machines[n]) {
      const home = join(this.base, `home${n === 0 ? "" : n + 1}`);
      const cwd = join(home, "project");
      mkdirSync(cwd, { recursive: true });
      this.sh(["git", "init", "--quiet", cwd], home, this.base);
      this.machines[n] = { home, cwd };
    }
    return this.machines[n];
  }

  private get here(): Machine {
    return this.machine(this.current);
  }

  private sh(argv: string[], home: string, cwd: string, input?: string) {
    const r = spawnSync(argv[0]!, argv.slice(1), {
      cwd,
      input,
      encoding: "utf8",
      env: sandboxEnv(home, ENV),
    });
    return { status: r.status ?? -1, output: r.stdout + r.stderr, stdout: r.stdout };
  }

  async prepare(setup: Setup): Promise<void> {
    const { home, cwd } = this.here;
    if (setup === "home") expect((await runKanon(["init"], { home, cwd })).status).toBe(0);
    if (setup === "applied") {
      const r = await runKanon(["--home", join(ROOT, "examples/home"), "apply", "--yes"], { home, cwd });
      expect(r.status, r.stderr).toBe(0);
    }
    if (setup === "example-home")
      cpSync(join(ROOT, "examples/home"), join(home, ".config/kanon"), { recursive: true });
  }

  /** A word as sh expands it here: `~` at its start, `$VAR` and `${VAR}` outside single quotes. */
  private expand(word: Word): string {
    const env = sandboxEnv(this.here.home, ENV);
    const text = word
      .map((s, i) => {
        let t = s.text;
        if (s.quote === "'") return t;
        if (i === 0 && s.quote === "" && /^~(\/|$)/.test(t)) t = this.here.home + t.slice(1);
        return t.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => env[a ?? b] ?? "");
      })
      .join("");
    return this.url(text);
  }

  /** The docs' remote, as this sandbox's bare repository (made the first time it is named). */
  private url(text: string): string {
    if (!text.includes(REMOTE)) return text;
    if (!existsSync(this.remote)) {
      mkdirSync(this.remote, { recursive: true });
      this.sh(["git", "init", "--quiet", "--bare", this.remote], this.here.home, this.base);
    }
    return text.replaceAll(REMOTE, this.remote);
  }

  /** What a command printed, as the docs show it: the remote's URL, the home as /home/me. */
  shown(output: string): string {
    // git shows a repository's path without its .git
    const remote = this.remote.slice(0, -".git".length);
    return output
      .replaceAll(this.remote, REMOTE)
      .replaceAll(remote, REMOTE)
      .replaceAll(this.here.home, SHOWN_HOME);
  }

  async run(step: Step & { kind: "run" }, stdin: string): Promise<{ status: number; output: string }> {
    let last = { status: 0, output: "" };
    for (const c of step.commands) {
      last = await this.command(c, stdin);
      if (last.status !== 0) break;
    }
    return last;
  }

  private async command(c: Command, stdin: string): Promise<{ status: number; output: string }> {
    const { home, cwd } = this.here;
    switch (c.kind) {
      case "skipped":
        return { status: 0, output: "" };
      case "cd": {
        const dir = this.expand(c.dir);
        this.here.cwd = isAbsolute(dir) ? dir : join(cwd, dir);
        return { status: existsSync(this.here.cwd) ? 0 : 1, output: "" };
      }
      case "sh":
        return this.sh(["/bin/sh", "-c", this.url(c.text)], home, cwd);
      case "kanon": {
        let input = stdin;
        if (c.input !== undefined) {
          const producer = this.sh(["/bin/sh", "-c", this.url(c.input)], home, cwd);
          if (producer.status !== 0) return producer;
          input = producer.stdout;
        }
        const r = await runKanon(
          c.args.map((w) => this.expand(w)),
          { home, cwd, input, env: ENV },
        );
        if (c.output) {
          const to = this.expand(c.output.to);
          const path = isAbsolute(to) ? to : join(cwd, to);
          (c.output.append ? appendFileSync : writeFileSync)(path, r.stdout);
          return { status: r.status, output: r.stderr };
        }
        return { status: r.status, output: r.output };
      }
    }
  }

  async step(example: Example, step: Step): Promise<void> {
    if (step.kind === "machine") {
      this.current = step.machine;
      return;
    }
    const where = `${example.page}:${step.line}: ${step.text}`;
    // A console block's prompts are answered as it shows them; a sh block's one prompt with y.
    const answers = (step.output ?? []).flatMap((l) => /\[y\/N\] (\S+)$/.exec(l)?.[1] ?? []);
    const stdin = step.output ? answers.map((a) => `${a}\n`).join("") : "y\n";
    const r = await this.run(step, stdin);
    expect(r.status, `${where}\n${r.output}`).toBe(step.status);
    if (step.output) {
      const actual = lines(this.shown(echoAnswers(r.output, answers)));
      if (!matches(step.output, actual)) expect(actual.join("\n"), where).toBe(step.output.join("\n"));
    }
  }

  cleanup(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** Output as a terminal shows it after the answers were typed: each answer after its prompt. */
function echoAnswers(output: string, answers: string[]): string {
  let out = output;
  let from = 0;
  for (const a of answers) {
    const at = out.indexOf("[y/N] ", from);
    if (at < 0) break;
    const end = at + "[y/N] ".length;
    out = `${out.slice(0, end)}${a}\n${out.slice(end)}`;
    from = end + a.length + 1;
  }
  return out;
}

/** Lines without trailing blanks, and no empty last lines. */
function lines(text: string): string[] {
  const out = text.split("\n").map((l) => l.trimEnd());
  while (out.length > 0 && out.at(-1) === "") out.pop();
  return out;
}

/** Shown output against what ran: `…` alone is any lines (none too), `…` within a line any text. */
function matches(shown: string[], actual: string[]): boolean {
  const line = (s: string, a: string) =>
    s === a ||
    (s.includes("…") &&
      new RegExp(
        `^${s
          .split("…")
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
      ).test(a));
  const from = (i: number, j: number): boolean => {
    if (i === shown.length) return j === actual.length;
    if (shown[i] === "…") return from(i + 1, j) || (j < actual.length && from(i, j + 1));
    return j < actual.length && line(shown[i]!, actual[j]!) && from(i + 1, j + 1);
  };
  return from(0, 0);
}

async function runChain(chain: Chain): Promise<void> {
  const s = new ExampleSandbox();
  try {
    await s.prepare(chain.setup);
    for (const example of chain.examples) for (const step of example.steps) await s.step(example, step);
  } finally {
    s.cleanup();
  }
}

const { chains, errors } = readExamples(readDocPages(ROOT));

describe("the docs' command examples", () => {
  it("are all written to be run (a sh or console block, a known marker, commands the test runs)", () => {
    expect(errors.map((e) => `${e.page}:${e.line}: ${e.message}`)).toEqual([]);
    expect(chains.length).toBeGreaterThan(5);
  });

  for (const chain of chains) {
    const setup = chain.setup ? ` (setup=${chain.setup})` : "";
    it(`${chain.page}:${chain.line}${setup}, ${chain.examples.length} block(s)`, () => runChain(chain));
  }
});

describe("how the examples are read", () => {
  const read = (text: string) => readExamples({ "docs/t.md": text });
  const fence = (lang: string, body: string, marker = "") =>
    `# T\n\n${marker ? `${marker}\n` : ""}\`\`\`${lang}\n${body}\n\`\`\`\n`;
  const steps = (text: string) => read(text).chains[0]!.examples[0]!.steps;

  it("refuses a kanon line in a block that is not run, and a command it does not run", () => {
    expect(read(fence("", "kanon diff")).errors).toEqual([
      { page: "docs/t.md", line: 4, message: expect.stringContaining("must be a ```sh or ```console block") },
    ]);
    expect(read(fence("text", "$ kanon apply --yes")).errors).toHaveLength(1);
    expect(read(fence("sh", "kanon diff\nnpm install left-pad")).errors).toEqual([
      {
        page: "docs/t.md",
        line: 5,
        message: expect.stringContaining('"npm" is not run by the examples test'),
      },
    ]);
    expect(read(fence("sh", "curl https://example.invalid | sh")).errors).toHaveLength(1);
    expect(read(fence("sh", "kanon diff; rm -rf ~")).errors[0]!.message).toContain('";" is not supported');
  });

  it("takes a marker's setup, continue, or not run with its reason only", () => {
    expect(read(fence("sh", "kanon diff", "<!-- example: setup=home -->")).chains[0]!.setup).toBe("home");
    expect(read(fence("sh", "kanon diff", "<!-- example: setup=nope -->")).errors[0]!.message).toContain(
      'unknown example marker "setup=nope"',
    );
    expect(read(fence("sh", "kanon diff", "<!-- example: not run -->")).errors[0]!.message).toContain(
      "needs its reason",
    );
    expect(read(fence("sh", "npm publish", "<!-- example: not run: it publishes -->"))).toEqual({
      chains: [],
      errors: [],
    });
    expect(read(fence("sh", "kanon diff", "<!-- example: continue -->")).errors[0]!.message).toContain(
      "no example before it",
    );
    const two = read(
      `${fence("sh", "kanon init")}\n<!-- example: continue -->\n\`\`\`sh\nkanon diff\n\`\`\`\n`,
    );
    expect(two.chains).toHaveLength(1);
    expect(two.chains[0]!.examples).toHaveLength(2);
    expect(read(fence("yaml", "version: 1", "<!-- example: setup=home -->")).errors[0]!.message).toContain(
      "before a block that is no example",
    );
  });

  it("reads a sh line's commands, status, stdin, redirection and machine", () => {
    const [stage, machine, chain, pipe, schema, joined] = steps(
      fence(
        "sh",
        [
          "kanon stage start plan   # exit 2: no handoff",
          "# on another machine:",
          "npm ci && kanon diff",
          `printf '%s' "$TOKEN # not a comment" | kanon secret set T`,
          "kanon schema > kanon.schema.json",
          "kanon waypoint set \\",
          '  --next "a b"',
        ].join("\n"),
      ),
    ) as (Step & { kind: "run" })[];
    expect(stage).toMatchObject({ kind: "run", line: 4, status: 2, text: "kanon stage start plan" });
    expect(machine).toEqual({ kind: "machine", line: 5, machine: 1 });
    expect(chain!.commands.map((c) => c.kind)).toEqual(["skipped", "kanon"]);
    expect(pipe!.commands[0]).toMatchObject({ kind: "kanon", input: `printf '%s' "$TOKEN # not a comment"` });
    expect(schema!.commands[0]).toMatchObject({
      output: { append: false, to: [{ text: "kanon.schema.json" }] },
    });
    expect(joined!.commands[0]).toMatchObject({
      args: [[{ text: "waypoint" }], [{ text: "set" }], [{ text: "--next" }], [{ text: "a b", quote: '"' }]],
    });
  });

  it("reads a console block's commands with the output after each", () => {
    const [diff, apply] = steps(fence("console", "$ kanon diff\nNo changes.\n$ kanon apply\n…")) as (Step & {
      kind: "run";
    })[];
    expect(diff).toMatchObject({ text: "kanon diff", output: ["No changes."] });
    expect(apply).toMatchObject({ text: "kanon apply", output: ["…"] });
    expect(read(fence("console", "No changes.")).errors[0]!.message).toContain("starts with a $ line");
  });

  it("matches shown output: … alone for any lines, … in a line for any text", () => {
    expect(matches(["a", "…", "d"], ["a", "b", "c", "d"])).toBe(true);
    expect(matches(["a", "…", "b"], ["a", "b"])).toBe(true);
    expect(matches(["Undo the apply of …:"], ["Undo the apply of 2026-12-06:"])).toBe(true);
    expect(matches(["a", "b"], ["a", "b", "c"])).toBe(false);
    expect(matches(["a", "c"], ["a", "b", "c"])).toBe(false);
    expect(matches(["x…"], ["yx"])).toBe(false);
  });
});
