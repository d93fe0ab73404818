/**
 * POSIX single-quoting: the one form in which a shell (sh, bash, dash, zsh) performs no expansion at
 * all, so `sh -c "<quoted argv joined by spaces>"` runs exactly the original argv.
 */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export function commandLine(argv: string[]): string {
  return argv.map(shellQuote).join(" ");
}
