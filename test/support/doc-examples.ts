/**
 * The command examples of the docs (README.md and docs/*.md), read into steps that
 * test/docs/examples.test.ts runs. The rules are written out in docs/development.md ("The docs"):
 *
 * - An example is a fenced ```sh, ```bash, ```shell or ```console block. A block of another language
 *   (or none) with a line that starts with `kanon ` (or `$ kanon `) is an error: a command example
 *   is one of those blocks, so that it is run.
 * - The line before a block may be a marker: `<!-- example: setup=NAME -->` runs it in a fresh
 *   sandbox prepared by that setup, `<!-- example: continue -->` in the sandbox the page's example
 *   before it left, `<!-- example: not run: REASON -->` not at all (the reason is required). Without
 *   a marker an example runs in a fresh, empty sandbox.
 * - In a ```sh block every line is a command (`\` continues it, `&&` chains commands); `# …` is a
 *   comment. A comment line `# on another machine:` / `# on the second machine:` moves to a second
 *   sandbox HOME, `# on the first machine:` back. A comment that says `exit N` is the status the
 *   command must exit with; otherwise it must exit 0.
 * - In a ```console block a line `$ …` is a command and the lines after it, up to the next `$ `, are
 *   its output, which must match what kanon prints (stdout and stderr, as written): `…` alone on a
 *   line stands for any lines, `…` within a line for any text, `/home/me` for the sandbox HOME. A
 *   prompt shown as `[y/N] y` is answered with that answer.
 * - `kanon …` runs in the test's process. Other commands run with /bin/sh in the sandbox when they are
 *   in ALLOWED; a few are skipped by rule (SKIPPED, with the reason); any other is an error.
 */

/** Commands other than kanon that an example may run, with /bin/sh in the sandbox. */
export const ALLOWED = ["git", "echo", "printf", "mkdir", "cat", "cd", "$EDITOR"];

/** Commands that are not run, by rule: what the test suite itself is, or needs. */
export const SKIPPED: Record<string, string> = {
  "npm ci": "the suite runs in an installed checkout",
  "npm test": "the suite is npm test",
  "npm run build": "npm test builds dist/ first (pretest)",
  "npm run example":
    "scripts/example.mjs rebuilds dist/ while the suite uses it; test/smoke/dist.test.ts runs the example home",
  "npm link": "it would install kanon for the whole machine; the examples run kanon in-process instead",
};

/** The setups a marker may name (examples.test.ts prepares each one). */
export const SETUPS = ["home", "applied", "example-home"] as const;
export type Setup = (typeof SETUPS)[number] | "";

/** One piece of a shell word: its text and how it was quoted (which decides what expands). */
export interface Segment {
  text: string;
  quote: "" | "'" | '"';
}
export type Word = Segment[];

export type Command =
  | { kind: "kanon"; args: Word[]; input?: string; output?: { append: boolean; to: Word } }
  | { kind: "sh"; text: string }
  | { kind: "cd"; dir: Word }
  | { kind: "skipped"; text: string; reason: string };

export type Step =
  | { kind: "machine"; line: number; machine: 0 | 1 }
  | {
      kind: "run";
      line: number;
      text: string;
      commands: Command[];
      status: number;
      /** A console block's shown output, line by line. */
      output?: string[];
    };

export interface Example {
  page: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  setup: Setup;
  steps: Step[];
}

/** Examples that run one after another in one sandbox: a block and the `continue` blocks after it. */
export interface Chain {
  page: string;
  line: number;
  setup: Setup;
  examples: Example[];
}

export interface DocError {
  page: string;
  line: number;
  message: string;
}

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);
const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;
const MACHINE = /^#\s*on (another|the second|the first) machine\b/;

type Token = { at: number } & ({ op: string } | { word: Word });

class ParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/**
 * Words and operators of one line as sh splits them: quotes, backslashes, a `#` comment. `$…` and `~`
 * stay as written (expanded when the line runs). `end` is where the comment starts.
 */
export function lex(text: string): { tokens: Token[]; comment: string; end: number } {
  const tokens: Token[] = [];
  let i = 0;
  let word: Word | undefined;
  let start = 0;
  const add = (s: string, quote: Segment["quote"]) => {
    word ??= [];
    const last = word.at(-1);
    if (last && last.quote === quote) last.text += s;
    else word.push({ text: s, quote });
  };
  const endWord = () => {
    if (word) tokens.push({ at: start, word });
    word = undefined;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (!word) start = i;
    if (/\s/.test(c)) {
      endWord();
      i++;
    } else if (c === "#" && !word) {
      return { tokens, comment: text.slice(i + 1).trim(), end: i };
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw new ParseError("unterminated ' quote");
      add(text.slice(i + 1, close), "'");
      i = close + 1;
    } else if (c === '"') {
      let s = "";
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && /["\\$`]/.test(text[i + 1] ?? "")) i++;
        s += text[i++];
      }
      if (i >= text.length) throw new ParseError('unterminated " quote');
      add(s, '"');
      i++;
    } else if (c === "\\") {
      add(text[i + 1] ?? "", "'");
      i += 2;
    } else {
      const op = /^(&&|\|\||>>|[|;&<>`]|\$\()/.exec(text.slice(i))?.[0];
      if (op) {
        endWord();
        tokens.push({ at: i, op });
        i += op.length;
      } else {
        add(c, "");
        i++;
      }
    }
  }
  endWord();
  return { tokens, comment: "", end: text.length };
}

const isWord = (t: Token | undefined, text?: string): t is { at: number; word: Word } =>
  t !== undefined && "word" in t && (text === undefined || plain(t.word) === text);
const plain = (w: Word) => w.map((s) => s.text).join("");

/** One `&&`-separated part of a line: kanon in-process, another command through sh, or skipped. */
function command(tokens: Token[], raw: string, offset: number): Command {
  const text = raw.trim();
  const skipped = SKIPPED[text];
  if (skipped) return { kind: "skipped", text, reason: skipped };
  const pipe = tokens.findIndex((t) => "op" in t && t.op === "|");
  const kanonAt = pipe >= 0 ? pipe + 1 : 0;
  if (!isWord(tokens[kanonAt], "kanon")) {
    const first = tokens[0];
    if (!isWord(first)) throw new ParseError(`cannot read "${text}"`);
    const name = plain(first.word);
    const known =
      ALLOWED.includes(name) || (first.word[0]?.quote === "" && ALLOWED.includes(first.word[0].text));
    if (!known)
      throw new ParseError(
        `"${name}" is not run by the examples test: use ${ALLOWED.join(", ")} or kanon, or mark the block <!-- example: not run: <reason> -->`,
      );
    if (name === "cd") {
      if (tokens.length !== 2 || !isWord(tokens[1])) throw new ParseError("cd takes one folder");
      return { kind: "cd", dir: tokens[1].word };
    }
    return { kind: "sh", text };
  }
  const input = pipe >= 0 ? raw.slice(0, tokens[pipe]!.at - offset).trim() : undefined;
  if (input !== undefined) command(tokens.slice(0, pipe), input, offset); // the producer must be allowed
  const rest = tokens.slice(kanonAt + 1);
  const args: Word[] = [];
  let output: { append: boolean; to: Word } | undefined;
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!;
    if (isWord(t)) args.push(t.word);
    else if ((t.op === ">" || t.op === ">>") && i === rest.length - 2 && isWord(rest[i + 1])) {
      output = { append: t.op === ">>", to: (rest[i + 1] as { word: Word }).word };
      break;
    } else
      throw new ParseError(
        `"${t.op}" is not supported in a kanon line (only "a | kanon …" and "kanon … > file")`,
      );
  }
  return { kind: "kanon", args, input, output };
}

/** One command line: its commands, and the status its comment expects. */
function runStep(line: number, text: string): Step {
  try {
    return readLine(line, text);
  } catch (e) {
    if (e instanceof ParseError && e.line === undefined) throw new ParseError(e.message, line);
    throw e;
  }
}

function readLine(line: number, text: string): Step {
  const { tokens, comment, end } = lex(text);
  const commands: Command[] = [];
  let from = 0;
  let part: Token[] = [];
  const flush = (to: number) => {
    if (part.length === 0) throw new ParseError(`empty command in "${text.trim()}"`);
    commands.push(command(part, text.slice(from, to), from));
    part = [];
  };
  for (const t of tokens) {
    if ("op" in t && t.op === "&&") {
      flush(t.at);
      from = t.at + 2;
    } else part.push(t);
  }
  flush(end);
  const status = /\bexit (\d+)\b/.exec(comment)?.[1];
  return {
    kind: "run",
    line,
    text: text.slice(0, end).trim(),
    commands,
    status: status ? Number(status) : 0,
  };
}

/** A ```sh block's steps: one per line (`\` joins lines), comment lines skipped or a machine switch. */
function shSteps(lines: string[], first: number): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const at = first + i;
    let text = lines[i]!;
    while (text.endsWith("\\") && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]}`;
    const trimmed = text.trim();
    if (trimmed === "") continue;
    const machine = MACHINE.exec(trimmed);
    if (machine) steps.push({ kind: "machine", line: at, machine: machine[1] === "the first" ? 0 : 1 });
    else if (!trimmed.startsWith("#")) steps.push(runStep(at, text));
  }
  return steps;
}

/** A ```console block's steps: each `$ ` line, with the lines after it as its output. */
function consoleSteps(lines: string[], first: number): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("$ ")) {
      steps.push({ ...(runStep(first + i, line.slice(2)) as Step & { kind: "run" }), output: [] });
    } else {
      const last = steps.at(-1);
      if (last?.kind !== "run") throw new ParseError("a console block starts with a $ line");
      last.output!.push(line);
    }
  }
  return steps;
}

type Marker = { kind: "fresh"; setup: Setup } | { kind: "continue" } | { kind: "not run" };

function marker(text: string | undefined): Marker {
  const m = MARKER.exec(text?.trim() ?? "");
  if (!m) return { kind: "fresh", setup: "" };
  const body = m[1]!;
  if (body === "continue") return { kind: "continue" };
  if (body.startsWith("not run")) {
    if (!/^not run: \S/.test(body))
      throw new ParseError("<!-- example: not run: <reason> --> needs its reason");
    return { kind: "not run" };
  }
  const setup = /^setup=(\S+)$/.exec(body)?.[1];
  if (!setup || !(SETUPS as readonly string[]).includes(setup))
    throw new ParseError(
      `unknown example marker "${body}": setup=${SETUPS.join("|")}, continue, or not run: <reason>`,
    );
  return { kind: "fresh", setup: setup as Setup };
}

interface Block {
  line: number;
  lang: string;
  body: string[];
  before: string | undefined;
}

/** The fenced blocks of a page (```lang … ```, indented or not), with the line before each. */
function blocks(text: string): Block[] {
  const lines = text.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const close = lines.findIndex((l, j) => j > i && l.trimEnd() === `${indent}\`\`\``);
    const end = close < 0 ? lines.length : close;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    out.push({
      line: i + 1,
      lang: open[2]!,
      body: lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)),
      before: before >= 0 ? lines[before] : undefined,
    });
    i = end;
  }
  return out;
}

/** The examples of every page, in chains, and every error in how they are written. */
export function readExamples(pages: Record<string, string>): { chains: Chain[]; errors: DocError[] } {
  const chains: Chain[] = [];
  const errors: DocError[] = [];
  for (const [page, text] of Object.entries(pages)) {
    let last: Chain | undefined;
    for (const block of blocks(text)) {
      const fail = (message: string, line = block.line) => errors.push({ page, line, message });
      try {
        const mark = marker(block.before);
        if (!SHELL_LANGS.has(block.lang)) {
          if (MARKER.test(block.before?.trim() ?? ""))
            fail("an example marker before a block that is no example");
          const at = block.body.findIndex((l) => /^(\$ )?kanon\s/.test(l));
          if (at >= 0)
            fail(
              "a command example must be a ```sh or ```console block, so that it is run",
              block.line + 1 + at,
            );
          continue;
        }
        if (mark.kind === "not run") {
          last = undefined;
          continue;
        }
        const first = block.line + 1;
        const steps = block.lang === "console" ? consoleSteps(block.body, first) : shSteps(block.body, first);
        const example = {
          page,
          line: block.line,
          setup: mark.kind === "fresh" ? mark.setup : "",
          steps,
        } as Example;
        if (mark.kind === "continue") {
          if (!last) throw new ParseError("<!-- example: continue --> with no example before it on the page");
          last.examples.push(example);
        } else {
          last = { page, line: block.line, setup: example.setup, examples: [example] };
          chains.push(last);
        }
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        fail(e.message, e.line);
        last = undefined;
      }
    }
  }
  return { chains, errors };
}
