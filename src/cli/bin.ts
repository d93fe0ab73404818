/** Entry point of the bundled `kanon` executable. */
import { main, processIo } from "./main.js";

// A reader that goes away (`kanon status | head -1`) ends the run quietly, like git: nothing more
// can be shown, and an apply that was waiting for its prompt to be seen does not proceed.
const io = processIo();
for (const stream of [io.stdout, io.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

main(process.argv.slice(2), io).then((code) => {
  process.exitCode = code;
});
