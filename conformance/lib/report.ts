// Per-check lines while the suite runs, and the summary matrix at the end.

export type Status = "pass" | "fail" | "warn" | "skip";

export interface CheckResult {
  row: string;
  check: string;
  status: Status;
  detail: string;
}

export interface RowInfo {
  row: string;
  version: string;
  seconds: number;
}

const LABEL: Record<Status, string> = { pass: "PASS", fail: "FAIL", warn: "WARN", skip: "SKIP" };

export class Report {
  readonly results: CheckResult[] = [];
  readonly rows = new Map<string, RowInfo>();
  private readonly columns: string[] = [];

  constructor(private readonly write: (line: string) => void) {}

  declareColumns(columns: string[]): void {
    for (const column of columns) if (!this.columns.includes(column)) this.columns.push(column);
  }

  row(info: RowInfo): void {
    this.rows.set(info.row, info);
  }

  add(row: string, check: string, status: Status, detail: string): void {
    this.declareColumns([check]);
    this.results.push({ row, check, status, detail });
    const lines = detail.split("\n");
    this.write(`[${row}] ${LABEL[status]} ${check}${lines[0] ? `  ${lines[0]}` : ""}`);
    for (const line of lines.slice(1)) this.write(`    ${line}`);
  }

  note(row: string, text: string): void {
    this.write(`[${row}] ${text}`);
  }

  get failed(): number {
    return this.results.filter((r) => r.status === "fail").length;
  }

  get passed(): number {
    return this.results.filter((r) => r.status === "pass").length;
  }

  /** The agent × check matrix. */
  matrix(): string {
    const rows = [...new Set([...this.rows.keys(), ...this.results.map((r) => r.row)])];
    const header = ["agent/scope", "version", ...this.columns, "seconds"];
    const table: string[][] = [header];
    for (const row of rows) {
      const info = this.rows.get(row);
      const cells = this.columns.map((column) => {
        const hits = this.results.filter((r) => r.row === row && r.check === column);
        if (hits.length === 0) return "-";
        if (hits.some((r) => r.status === "fail")) return "FAIL";
        if (hits.some((r) => r.status === "warn")) return "warn";
        if (hits.every((r) => r.status === "skip")) return "skip";
        return "pass";
      });
      table.push([row, info?.version ?? "?", ...cells, info ? info.seconds.toFixed(1) : "-"]);
    }
    const widths = header.map((_, i) => Math.max(...table.map((cells) => (cells[i] ?? "").length)));
    const line = (cells: string[]): string =>
      cells
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd();
    return [line(header), line(widths.map((w) => "-".repeat(w))), ...table.slice(1).map(line)].join("\n");
  }
}
