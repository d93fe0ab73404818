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

/** What an agent that expands variables in its settings strings (Gemini CLI) replaces: `$NAME` and `${…}`. */
const EXPANDED = /\$[\w{]/;

/**
 * A shell command rewritten so that an agent which expands `$NAME` and `${…}` in its settings strings
 * before running the command (Gemini CLI) leaves every `$` to the shell, which then sees exactly the
 * original command. Each `$` that would be expanded early is split from what follows with quoting
 * the shell removes again:
 * - inside single quotes (literal): `'a$HOME'` → `'a$''HOME'`;
 * - escaped (`\$`, literal): `\$HOME` → `\$''HOME`, and `"\$HOME"` → `"\$""HOME"`;
 * - expanded by the shell (unquoted or in double quotes): `$HOME` → `$\<newline>HOME` (a line
 *   continuation, which the shell removes before it expands).
 * Returns a reason instead when a `$` needs protecting and the command, outside single quotes, holds
 * constructs whose quoting this does not follow (backquotes, `$(…)`, `$'…'`, here-documents, comments).
 */
export function protectFromExpansion(command: string): { command: string } | { problem: string } {
  if (!EXPANDED.test(command)) return { command };
  let out = "";
  let quote: "'" | '"' | null = null;
  let unsupported: string | null = null;
  const expandable = (at: number) => /[\w{]/.test(command.charAt(at));
  for (let i = 0; i < command.length; i++) {
    const ch = command.charAt(i);
    const next = command.charAt(i + 1);
    if (quote === "'") {
      if (ch === "'") quote = null;
      out += ch === "$" && expandable(i + 1) ? "$''" : ch;
      continue;
    }
    if (ch === "\\") {
      // An escaped `$` is literal for the shell, and must still not reach the loader as `$NAME`.
      if (next === "$" && expandable(i + 2)) out += quote === '"' ? '\\$""' : "\\$''";
      else out += ch + next;
      i++;
      continue;
    }
    const construct =
      ch === "`"
        ? "`"
        : ch === "$" && (next === "(" || next === "'")
          ? ch + next
          : quote === null && ch === "<" && next === "<"
            ? "<<"
            : quote === null && ch === "#" && (i === 0 || /[\s;&|(]/.test(command.charAt(i - 1)))
              ? "#"
              : null;
    if (construct !== null) unsupported ??= construct.trim();
    if (ch === "'" && quote === null) quote = "'";
    else if (ch === '"') quote = quote === '"' ? null : '"';
    out += ch === "$" && expandable(i + 1) ? "$\\\n" : ch;
  }
  if (quote !== null)
    return { problem: `it has an unterminated ${quote === "'" ? "single" : "double"} quote` };
  if (unsupported !== null)
    return {
      problem: `it uses $VAR together with ${JSON.stringify(unsupported)}, whose quoting kanon does not follow`,
    };
  return { command: out };
}

/**
 * The command `protectFromExpansion` was given, for a command it returned (import): each `$` split
 * from what follows by `''`, `""` or a line continuation is joined again. Import keeps it only when
 * protecting it again gives back exactly the command found.
 */
export function unprotectExpansion(command: string): string {
  return command.replace(/\$(?:''|""|\\\n)(?=[\w{])/g, "$$");
}
