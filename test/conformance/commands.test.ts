/**
 * The commands and subagents phase's driver parts that need no agent: how each driver names a subagent to
 * its agent's tool, how OpenCode runs a command, and the acknowledgement Gemini CLI needs before it runs
 * a project subagent (the live phase proves them against the binaries: conformance/commands/phase.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { drivers } from "../../conformance/drivers/index.js";
import type { Installed, Layout } from "../../conformance/drivers/types.js";

const driver = (id: string) => drivers.find((d) => d.id === id)!;
const installed = { argv: ["agent"] } as Installed;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tempLayout(): Layout {
  dir = mkdtempSync(join(tmpdir(), "kanon-commands-"));
  const layout = { root: dir, home: join(dir, "home"), project: join(dir, "project") } as Layout;
  mkdirSync(layout.home, { recursive: true });
  mkdirSync(layout.project, { recursive: true });
  return layout;
}

describe("commands phase drivers", () => {
  it("names the subagent in the call to each agent's own tool", () => {
    const first = Object.fromEntries(
      drivers.map((d) => {
        const call = d.subagentCalls?.("kanon-reader", "the task")[0];
        return [d.id, call && { name: call.name, args: call.args }];
      }),
    );
    expect(first).toEqual({
      claude: {
        name: "Agent",
        args: {
          subagent_type: "kanon-reader",
          description: "kanon conformance",
          prompt: "the task",
          run_in_background: false,
        },
      },
      codex: {
        name: "multi_agent_v1__spawn_agent",
        args: { agent_type: "kanon-reader", message: "the task" },
      },
      gemini: { name: "invoke_agent", args: { agent_name: "kanon-reader", prompt: "the task" } },
      kimi: {
        name: "Agent",
        args: { subagent_type: "kanon-reader", description: "kanon conformance", prompt: "the task" },
      },
      opencode: {
        name: "task",
        args: { subagent_type: "kanon-reader", description: "kanon conformance", prompt: "the task" },
      },
    });
    // A Gemini subagent ends its turn only through complete_task.
    expect(
      driver("gemini")
        .subagentCalls?.("x", "t")
        .map((c) => c.name),
    ).toEqual(["invoke_agent", "complete_task"]);
  });

  it("can hand work to a subagent in every agent whose manifest has subagents", () => {
    for (const d of drivers)
      expect(d.subagentCalls !== undefined, d.id).toBe(!("lacks" in d.manifest.subagents));
  });

  it("runs an OpenCode command with run --command and the arguments as words", () => {
    const layout = { root: "/r", home: "/h", project: "/p" } as Layout;
    const run = driver("opencode").commandInvocation?.(installed, layout, "http://m", "kanon-pos", [
      "alpha",
      "beta",
    ]);
    expect(run?.argv.slice(-4)).toEqual(["--command", "kanon-pos", "alpha", "beta"]);
    expect(run?.argv[1]).toBe("run");
    expect(run?.stdin).toBeUndefined();
    // The others take the command as their prompt.
    for (const id of ["claude", "codex", "gemini", "kimi"])
      expect(driver(id).commandInvocation, id).toBeUndefined();
  });

  it("acknowledges Gemini project subagents by the SHA-256 of each file, keyed by project and name", async () => {
    const layout = tempLayout();
    const file = join(layout.project, ".gemini", "agents", "kanon-reader.md");
    mkdirSync(join(layout.project, ".gemini", "agents"), { recursive: true });
    writeFileSync(file, "---\nname: kanon-reader\ndescription: d\n---\nbody\n");
    const ack = join(layout.home, ".gemini", "acknowledgments", "agents.json");

    await driver("gemini").subagentSetup?.(layout, "user", [{ name: "kanon-reader", file }]);
    expect(existsSync(ack), "user subagents need no acknowledgement").toBe(false);

    await driver("gemini").subagentSetup?.(layout, "project", [{ name: "kanon-reader", file }]);
    const sha = createHash("sha256").update(readFileSync(file)).digest("hex");
    expect(JSON.parse(readFileSync(ack, "utf8"))).toEqual({ [layout.project]: { "kanon-reader": sha } });
  });

  it("holds back Codex's final answer so that its background subagent reaches the model", () => {
    const delays = Object.fromEntries(drivers.map((d) => [d.id, d.subagentDelayMs ?? 0]));
    expect(delays).toEqual({ claude: 0, codex: 2000, gemini: 0, kimi: 0, opencode: 0 });
  });
});
