/** The record a plan makes for files kanon creates: its hashes are made when the record is first read. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderedHandlers } from "../../src/destination/edit/handlers.js";
import { planChanges } from "../../src/destination/plan.js";
import { sha256, valueHash } from "../../src/destination/record.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "kanon-plan-record-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const enc = (s: string) => new TextEncoder().encode(s);

describe("the record of a plan on a new destination", () => {
  it("hashes every file and entry kanon creates, each shared content once, whenever it is read", async () => {
    const shared = enc("shared\n");
    const hooks = { Stop: [{ hooks: [{ type: "command", command: "x" }] }] };
    const server = { command: "mcp" };
    const plan = await planChanges(
      [
        { agent: "claude", path: join(root, "a/SKILL.md"), content: shared, mode: 0o644 },
        { agent: "codex", path: join(root, "b/SKILL.md"), content: shared, mode: 0o755 },
        {
          agent: "claude",
          path: join(root, "settings.json"),
          content: enc(`${JSON.stringify({ hooks })}\n`),
          mode: 0o644,
          merge: { kind: "handlers", format: "json", key: "hooks" },
          managed: { hooks },
        },
        {
          agent: "claude",
          path: join(root, ".claude.json"),
          content: enc(`${JSON.stringify({ mcpServers: { s: server } })}\n`),
          mode: 0o644,
          merge: { kind: "entries", format: "json", key: "mcpServers" },
          managed: { mcpServers: { s: server } },
        },
      ],
      { record: null, root, agents: ["claude", "codex"] },
    );
    expect(plan.changes.map((c) => c.action)).toEqual(["create", "create", "create", "create"]);
    const { record } = plan;
    expect(record.files).toEqual({
      [join(root, "a/SKILL.md")]: { agent: "claude", sha256: sha256("shared\n"), mode: "0644" },
      [join(root, "b/SKILL.md")]: { agent: "codex", sha256: sha256("shared\n"), mode: "0755" },
    });
    expect(JSON.stringify(record.entries)).toBe(
      JSON.stringify({
        [join(root, "settings.json")]: {
          agent: "claude",
          merge: { kind: "handlers", format: "json", key: "hooks" },
          handlers: renderedHandlers(hooks).map((h) => h.key),
          created: true,
        },
        [join(root, ".claude.json")]: {
          agent: "claude",
          merge: { kind: "entries", format: "json", key: "mcpServers" },
          names: { s: valueHash(server) },
          created: true,
        },
      }),
    );
    // Read again, or copied with the rest of the plan: the same record.
    expect(plan.record).toBe(record);
    expect({ ...plan }.record).toEqual(record);
  });
});
