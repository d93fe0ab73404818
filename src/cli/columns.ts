/** Plain-text tables for the terminal (`kanon hooks`, `kanon mcp`). */

/** Each row as one line, its cells padded to their column's widest and two spaces apart. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd(),
  );
}
