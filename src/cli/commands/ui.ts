/** `kanon ui`: checks that run before the terminal UI (and Ink) are loaded. */
import { selectAgents } from "../../agents/index.js";
import { checkMachineFlags, type MachineFlags } from "../../import/machine.js";
import { KanonError } from "../../model/types.js";
import type { GlobalFlags, Io } from "../context.js";
import { uiHost } from "../ui/host.js";

export async function uiCommand(
  flags: GlobalFlags,
  opts: { dryRun?: boolean; mode?: string } & MachineFlags,
  io: Io,
): Promise<void> {
  if (!(io.stdout as NodeJS.WriteStream).isTTY || !io.stdin.isTTY) {
    throw new KanonError("kanon ui requires an interactive terminal");
  }
  const mode = opts.mode === undefined || opts.mode === "" ? "apply" : opts.mode;
  if (mode !== "apply" && mode !== "import") throw new KanonError(`unsupported UI mode ${mode}`);
  selectAgents(flags.agent);
  // Import mode's flags are checked in either mode: `m` switches to it.
  checkMachineFlags(opts);
  const host = uiHost(flags, opts, io);
  const { runUi } = await import("../ui/app.js");
  await runUi(host, { mode, dryRun: !!opts.dryRun }, io);
}
