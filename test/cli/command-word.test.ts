/**
 * The program defines only the command its argv names (program.ts commandsFor), or every command when
 * argv names none: help, usage errors and suggestions are the same either way.
 */
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

describe("the command word", () => {
  it("is found after global options and their values, in either spelling", async () => {
    const help = await s.run(["diff", "--help"]);
    expect(help).toMatchObject({ status: 0 });
    expect(help.stdout).toContain("Usage: kanon diff [options]");
    for (const argv of [
      ["--home", s.work, "diff", "--help"],
      [`--home=${s.work}`, "diff", "--help"],
      ["--agent", "claude", "--project", s.work, "diff", "--help"],
    ])
      expect(await s.run(argv)).toEqual(help);
  });

  it("an alias names its command; its subcommands are there", async () => {
    expect((await s.run(["add", "--help"])).stdout).toBe((await s.run(["import", "--help"])).stdout);
    const waypoint = await s.run(["waypoint", "--help"]);
    for (const sub of ["set", "show", "clear", "pause", "resume"])
      expect(waypoint.stdout).toContain(`  ${sub}`);
    expect((await s.run(["waypoint", "sett"])).stderr).toBe(
      "error: too many arguments for 'waypoint'. Expected 0 arguments but got 1.\n",
    );
  });

  it("an unknown word, after global options too, is answered from every command", async () => {
    for (const argv of [["dif"], ["--home", s.work, "dif"], ["--agent", "diff", "dif"]])
      expect(await s.run(argv)).toMatchObject({
        status: 1,
        stderr: "error: unknown command 'dif'\n(Did you mean diff?)\n",
      });
  });

  it("the program's help lists every command, whatever follows an option it does not know", async () => {
    const help = await s.run(["--help"]);
    for (const name of ["init", "diff", "apply", "import|add", "waypoint", "lock"])
      expect(help.stdout).toContain(`  ${name}`);
    expect(await s.run(["-h", "diff"])).toEqual(help);
    expect(await s.run(["--json", "diff"])).toMatchObject({
      status: 1,
      stderr: "error: unknown option '--json'\n",
    });
  });

  it("a command's usage errors name its own options, and the global ones", async () => {
    expect(await s.run(["--home", s.work, "diff", "--stats"])).toMatchObject({
      status: 1,
      stderr: "error: unknown option '--stats'\n(Did you mean --stat?)\n",
    });
    expect(await s.run(["diff", "--hom", s.work])).toMatchObject({
      status: 1,
      stderr: "error: unknown option '--hom'\n(Did you mean --home?)\n",
    });
  });
});
