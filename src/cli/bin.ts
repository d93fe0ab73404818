/** Entry point of the bundled `kanon` executable. */
import { main, processIo } from "./main.js";

main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
