/**
 * A fuzzer over kanon.yaml: random mutations of the example homes' kanon.yaml, each run through
 * `validate`, `render` and `apply --yes` (into an empty HOME, after validate passes). A case fails
 * on an exit status other than 0 or 1, on internal error text (a stack trace, a JavaScript error
 * name, `undefined`), or on taking more than 10 s. `npm test` runs 200 (the default);
 * `npm run fuzz` runs 5,000. FUZZ_SEED replays a run.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { ROOT } from "../support/cli.js";

const CASES = Number(process.env.FUZZ_CASES || 200);
const SEED = Number(process.env.FUZZ_SEED || Date.now() % 1_000_000);
const LIMIT_MS = 10_000;

const HOMES = ["examples/home", "test/fixtures/homes/full", "conformance/home"].map((h) => join(ROOT, h));

/** Fragments that have broken YAML decoders, schema checks and renderers before. */
const FRAGMENTS = [
  "~",
  "null",
  "[~]",
  "[null, ~]",
  "{}",
  "[]",
  "''",
  '""',
  "-5",
  "0",
  "-0",
  "1e400",
  "0x1F",
  "0o17",
  ".inf",
  ".nan",
  "99999999999999999999",
  "9007199254740993",
  "2147483648",
  "1.5",
  "yes",
  "no",
  "on",
  '"\\0"',
  '"a\\0b"',
  '"\\udce9"',
  '"\\ud800x"',
  '"\\e[31m"',
  '"\\x7f"',
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "&a",
  "*a",
  "&a [1, 2]",
  "<<: *a",
  "<<: [*a, *a]",
  "<<: 3",
  "<<",
  "---",
  "...",
  "!!str",
  "!!binary aGk=",
  "!!int 3",
  "!!map {}",
  "!!seq []",
  "!custom x",
  "? complex",
  "{a: b",
  "[a, b",
  "}",
  "]",
  "|",
  ">-",
  "'unterminated",
  '"unterminated',
  "\t",
  "key: value",
  "- item",
  ": :",
  "#",
  "%YAML 1.2",
  "café",
  "\u{1F600}",
  "\u202e",
  "${VAR}",
  "${VAR:-x}",
  "$",
  "'",
  "`",
  "\\",
  "../..",
  "/",
  "~/x",
  "all",
  "codex",
  "claude",
  "opencode",
  "cursor",
  "PreToolUse",
  "Notification",
  "Stop",
  "Bash|Edit",
  "(",
  "*",
  "x".repeat(300),
  "enabled: false",
  "targets: [~]",
  "args: [~]",
  "timeout: -1",
  "type: http",
  "url: ''",
];

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

type Rng = ReturnType<typeof random>;

function mutate(text: string, rng: Rng): string {
  let lines = text.split("\n");
  const steps = 1 + rng.int(4);
  for (let s = 0; s < steps; s++) {
    const i = rng.int(lines.length);
    const line = lines[i] ?? "";
    const indent = /^ */.exec(line)![0];
    switch (rng.int(9)) {
      case 0: // replace a value
        lines[i] = line.includes(":")
          ? `${line.slice(0, line.indexOf(":") + 1)} ${rng.pick(FRAGMENTS)}`
          : `${indent}- ${rng.pick(FRAGMENTS)}`;
        break;
      case 1: // insert a fragment line
        lines.splice(i, 0, `${indent}${rng.pick(FRAGMENTS)}`);
        break;
      case 2: // delete a line
        lines.splice(i, 1);
        break;
      case 3: // duplicate a line
        lines.splice(i, 0, line);
        break;
      case 4: // swap two lines
        {
          const j = rng.int(lines.length);
          [lines[i], lines[j]] = [lines[j] ?? "", line];
        }
        break;
      case 5: // change the indentation
        lines[i] = " ".repeat(rng.int(8)) + line.trimStart();
        break;
      case 6: // insert a fragment inside the line
        {
          const at = rng.int(line.length + 1);
          lines[i] = line.slice(0, at) + rng.pick(FRAGMENTS) + line.slice(at);
        }
        break;
      case 7: // a random character
        {
          const at = rng.int(line.length + 1);
          const ch = String.fromCharCode(
            rng.pick([0, 7, 9, 10, 13, 27, 0x7f, 0x85, 0xa0, 0xfeff, 0x2028, 32 + rng.int(95)]),
          );
          lines[i] = line.slice(0, at) + ch + line.slice(at);
        }
        break;
      default: // anchor a block and alias it elsewhere
        lines[i] = line.replace(/: *$/, ": &a").replace(/: (\S)/, ": &a $1");
        lines.splice(
          rng.int(lines.length),
          0,
          `${indent}${rng.pick(["x: *a", "- *a", "<<: *a", "args: *a"])}`,
        );
    }
  }
  if (rng.int(20) === 0) lines = [...lines, ...lines]; // a repeated document
  return lines.join("\n");
}

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function kanon(args: string[], homeDir: string, userHome: string) {
  const stdout = new Capture();
  const stderr = new Capture();
  const start = performance.now();
  const status = await main(["--home", homeDir, ...args], {
    stdout,
    stderr,
    stdin: process.stdin,
    env: { KANON_DEBUG: "1", PATH: process.env.PATH },
    cwd: homeDir,
    userHome,
  });
  return { status, stdout: stdout.text, stderr: stderr.text, ms: performance.now() - start };
}

/** Text that only an internal error prints (KANON_DEBUG adds the stack). */
const INTERNAL =
  /\n\s+at |TypeError|ReferenceError|RangeError|SyntaxError|Cannot read prop|is not a function|is not iterable|\bundefined\b|\[object Object\]|Maximum call stack/;

const base = mkdtempSync(join(tmpdir(), "kanon-fuzz-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

it(`${CASES} mutated kanon.yaml files: exit 0 or 1, no internal error, under 10 s each (seed ${SEED})`, {
  timeout: 3_600_000,
}, async () => {
  const rng = random(SEED);
  const homes = HOMES.map((src, i) => {
    const dir = join(base, `home-${i}`);
    cpSync(src, dir, { recursive: true });
    return { dir, text: readFileSync(join(src, "kanon.yaml"), "utf8") };
  });
  const problems: string[] = [];
  const outcomes = { valid: 0, invalid: 0 };
  for (let n = 0; n < CASES && problems.length < 5; n++) {
    const home = rng.pick(homes);
    const text = mutate(home.text, rng);
    writeFileSync(join(home.dir, "kanon.yaml"), text);
    const userHome = join(base, `user-${n}`);
    mkdirSync(userHome);
    for (const args of [["validate"], ["render"], ["apply", "--yes"]]) {
      const r = await kanon(args, home.dir, userHome);
      const bad =
        (r.status !== 0 && r.status !== 1 && `exit ${r.status}`) ||
        (INTERNAL.test(r.stderr) && `internal error: ${r.stderr.slice(0, 600)}`) ||
        (r.ms > LIMIT_MS && `took ${Math.round(r.ms)} ms`);
      if (bad) {
        problems.push(
          `case ${n} (seed ${SEED}), kanon ${args.join(" ")}: ${bad}\n--- kanon.yaml ---\n${text}\n---`,
        );
        break;
      }
      if (args[0] === "validate") outcomes[r.status === 0 ? "valid" : "invalid"]++;
      if (r.status !== 0) break;
    }
    rmSync(userHome, { recursive: true, force: true });
  }
  if (process.env.FUZZ_CASES)
    console.log(JSON.stringify({ cases: CASES, seed: SEED, ...outcomes, problems: problems.length }));
  expect(problems).toEqual([]);
  // The mutations must reach both sides, or the fuzzer tests nothing.
  if (CASES >= 100) expect(Math.min(outcomes.valid, outcomes.invalid)).toBeGreaterThan(CASES / 50);
});
