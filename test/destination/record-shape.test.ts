/**
 * The ownership record is read on every command, and may have been edited by hand or cut short: any
 * value of a wrong type, anywhere inside it, is a warning and a fresh start, never a crash; and what
 * kanon takes out of a file it shares with the user is decided by the manifests, never by the record
 * alone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AGENT_IDS, AGENTS } from "../../src/agents/index.js";
import type { Io } from "../../src/cli/context.js";
import { main } from "../../src/cli/main.js";
import { declaredMerges } from "../../src/core/merges.js";
import { planChanges } from "../../src/destination/plan.js";
import {
  type OwnershipRecord,
  parseRecord,
  sha256,
  undeclaredMerge,
  valueHash,
} from "../../src/destination/record.js";
import { loadRecord, rootStateDir, stateBase, writeRecord } from "../../src/destination/state.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kanon-record-shape-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEX = sha256("x");

/** A record with every kind of entry, and the files it names on disk. */
function fullRecord(root: string): OwnershipRecord {
  const files: Record<string, string> = {
    ".claude/CLAUDE.md": "Be brief.\n",
    "AGENTS.md": "Shared.\n",
    ".claude.json": '{"userID": "u", "mcpServers": {"docs": {"command": "d"}}}\n',
    ".claude/settings.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}\n',
    ".gemini/settings.json":
      '{"mcpServers": {"docs": {"command": "d"}}, "hooks": {"Stop": [{"hooks": [{"name": "kanon:guard", "type": "command", "command": "g"}]}]}}\n',
    ".kimi-code/config.toml": '[[hooks]] # kanon: guard\nevent = "Stop"\ncommand = "g"\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const at = (rel: string) => join(root, rel);
  return {
    version: 1,
    root,
    files: {
      [at(".claude/CLAUDE.md")]: { agent: "claude", sha256: sha256("Be brief.\n"), mode: "0644" },
      [at("AGENTS.md")]: { agent: "codex", agents: ["codex", "opencode"], sha256: HEX, mode: "0644" },
    },
    entries: {
      [at(".claude.json")]: {
        agent: "claude",
        merge: { kind: "entries", format: "json", key: "mcpServers" },
        names: { docs: valueHash({ command: "d" }) },
      },
      [at(".claude/settings.json")]: {
        agent: "claude",
        merge: { kind: "handlers", format: "json", key: "hooks" },
        handlers: [HEX],
        created: true,
      },
      [at(".gemini/settings.json")]: {
        agent: "gemini",
        merge: {
          kind: "regions",
          format: "json",
          regions: [
            { kind: "entries", format: "json", key: "mcpServers" },
            { kind: "hook-groups", format: "json", key: "hooks", namePrefix: "kanon:" },
          ],
        },
        regions: { mcpServers: { names: { docs: HEX } }, hooks: { labels: ["guard"] } },
      },
      [at(".kimi-code/config.toml")]: {
        agent: "kimi",
        merge: { kind: "tables", format: "toml", key: "hooks", marker: "kanon", labels: ["guard"] },
        labels: ["guard"],
      },
    },
    dirs: [at(".claude")],
    lastApply: "000001-20250101T000000Z-abcdef",
  };
}

/** Every place inside a JSON value, as a path of keys. */
function places(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const out = path.length > 0 ? [path] : [];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...places(v, [...path, i]));
  } else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...places(v, [...path, k]));
  return out;
}

function withValue(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path.at(-1)!] = replacement;
  return copy;
}

const WRONG = [null, 0, 1.5, -1, "", "x", true, [], ["x"], [1], {}, { a: "b" }, { a: 1 }];

describe("a record with a value of the wrong type anywhere", () => {
  it("is read as unusable (a warning, a fresh start) or as a record every plan can use", async () => {
    const root = join(dir, "root");
    const record = fullRecord(root);
    const base = join(dir, "state");
    const stateDir = rootStateDir(base, root);
    mkdirSync(stateDir, { recursive: true });
    let unusable = 0;
    let cases = 0;
    for (const place of places(record)) {
      for (const wrong of WRONG) {
        cases++;
        writeFileSync(join(stateDir, "record.json"), JSON.stringify(withValue(record, place, wrong)));
        const loaded = loadRecord(stateDir, root);
        if (loaded.record === null) {
          unusable++;
          expect(loaded.warnings).toHaveLength(1);
          expect(loaded.warnings[0]).toMatch(
            /^the kanon record .* is unusable: .*; treating this machine as new$/,
          );
          continue;
        }
        // Accepted (a wrong value where any value goes, such as a hash kanon only compares): every
        // command plans with it without an error.
        await planChanges([], { record: loaded.record, root, agents: [...AGENT_IDS] });
      }
    }
    // Most mutations are refused; the rest were planned with.
    expect(cases).toBeGreaterThan(500);
    expect(unusable).toBeGreaterThan(cases * 0.8);
  });

  it("names what is wrong", () => {
    const record = fullRecord(join(dir, "root"));
    const handlers = withValue(record, ["entries", join(dir, "root/.claude/settings.json"), "handlers"], {});
    expect(parseRecord(handlers, join(dir, "root"))).toBe(
      `the co-owned file entry ${JSON.stringify(join(dir, "root/.claude/settings.json"))} is malformed (handlers)`,
    );
    expect(parseRecord(withValue(record, ["dirs", 0], 7), join(dir, "root"))).toBe(
      "dirs holds a malformed path",
    );
    expect(parseRecord(withValue(record, ["lastApply"], {}), join(dir, "root"))).toBe(
      "lastApply is malformed",
    );
  });
});

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe("on the command line", () => {
  let home: string;
  let kh: string;
  beforeEach(() => {
    home = join(dir, "home");
    kh = join(dir, "kh");
    mkdirSync(home);
    mkdirSync(kh);
  });
  async function kanon(...args: string[]) {
    const stdout = new Capture();
    const stderr = new Capture();
    const io: Io = {
      stdout,
      stderr,
      stdin: process.stdin,
      env: { PATH: process.env.PATH },
      cwd: dir,
      userHome: home,
    };
    const status = await main(["--home", kh, "--agent", "claude", ...args], io);
    return { status, stdout: stdout.text, stderr: stderr.text };
  }
  const recordPath = () => join(rootStateDir(stateBase({}, home), home), "record.json");
  const editRecord = (
    edit: (r: { entries: Record<string, Record<string, unknown> & { merge: { key: string } }> }) => void,
  ) => {
    const r = JSON.parse(readFileSync(recordPath(), "utf8"));
    edit(r);
    writeFileSync(recordPath(), JSON.stringify(r));
  };

  it("handlers: {} is a warning for diff, status and apply, and the next apply writes a sound record", async () => {
    writeFileSync(
      join(kh, "kanon.yaml"),
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard\n",
    );
    expect((await kanon("apply", "--yes")).status).toBe(0);
    editRecord((r) => {
      r.entries[join(home, ".claude/settings.json")]!.handlers = {};
    });
    const warning = `warning: the kanon record ${recordPath()} is unusable: the co-owned file entry ${JSON.stringify(join(home, ".claude/settings.json"))} is malformed (handlers); treating this machine as new\n`;
    for (const command of ["diff", "status"]) {
      const r = await kanon(command);
      // status also says the Kanon home is no git repository.
      expect(r.stderr.startsWith(warning)).toBe(true);
      expect(r.status).toBe(0);
    }
    const apply = await kanon("apply", "--yes");
    expect(apply.status).toBe(0);
    expect(apply.stderr).toBe(warning);
    expect((await kanon("diff")).stderr).toBe("");
  });

  it("a merge key edited into the record never makes apply delete the user's value there", async () => {
    const token = { accessToken: "secret-token", refreshToken: "r" };
    writeFileSync(join(home, ".claude.json"), `${JSON.stringify({ oauthAccount: token }, null, 2)}\n`);
    writeFileSync(join(kh, "kanon.yaml"), "version: 1\nmcp:\n  servers:\n    docs:\n      command: docs\n");
    expect((await kanon("apply", "--yes")).status).toBe(0);
    // The record now says kanon wrote oauthAccount.accessToken, and kanon renders no server any more.
    editRecord((r) => {
      const e = r.entries[join(home, ".claude.json")]!;
      e.merge.key = "oauthAccount";
      e.names = { accessToken: valueHash("secret-token") };
    });
    writeFileSync(join(kh, "kanon.yaml"), "version: 1\n");
    const r = await kanon("apply", "--yes");
    expect(r.stderr).toContain(
      `is unusable: its entry for ${join(home, ".claude.json")} (claude) merges "oauthAccount" as entries, which kanon does not write there; treating this machine as new`,
    );
    expect(JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")).oauthAccount).toEqual(token);
  });
});

describe("the merges the manifests declare", () => {
  it("cover every co-owned file kanon renders, and a record of them is accepted", () => {
    const declared = declaredMerges(AGENTS);
    const record = fullRecord(join(dir, "root"));
    expect(undeclaredMerge(record, declared)).toBeNull();
    const other = withValue(record, ["entries", join(dir, "root/.claude.json"), "merge", "kind"], "value");
    expect(undeclaredMerge(other as OwnershipRecord, declared)).toMatch(/merges "mcpServers" as value/);
    const elsewhere = structuredClone(record);
    elsewhere.entries[join(dir, "root/.bashrc")] = elsewhere.entries[join(dir, "root/.claude.json")]!;
    expect(undeclaredMerge(elsewhere, declared)).toMatch(/its entry for .*\.bashrc \(claude\)/);
  });

  it("writeRecord and loadRecord agree", () => {
    const root = join(dir, "root");
    const stateDir = join(dir, "s");
    mkdirSync(stateDir);
    writeRecord(stateDir, fullRecord(root));
    expect(loadRecord(stateDir, root).record).toEqual(fullRecord(root));
  });
});
