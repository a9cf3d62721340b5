/**
 * Markdown tables that also read well in a terminal: cells are padded to the column width
 * (by code points, so "µ", "≈", "✓" count as one column).
 */

export type Align = "left" | "right";

export interface Column {
  readonly header: string;
  readonly align?: Align;
}

function width(s: string): number {
  return [...s].length;
}

function pad(s: string, w: number, align: Align): string {
  const fill = " ".repeat(Math.max(0, w - width(s)));
  return align === "right" ? fill + s : s + fill;
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Renders a GitHub-flavoured Markdown table. Rows shorter than the header are padded with empty cells. */
export function markdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => columns.map((_, i) => escapeCell(r[i] ?? "")));
  const heads = columns.map((c) => escapeCell(c.header));
  const widths = columns.map((_, i) => Math.max(3, width(heads[i]), ...cells.map((r) => width(r[i]))));
  const line = (r: readonly string[]) =>
    `| ${r.map((c, i) => pad(c, widths[i], columns[i].align ?? "left")).join(" | ")} |`;
  const rule = `|${columns
    .map((c, i) => (c.align === "right" ? `${"-".repeat(widths[i] + 1)}:` : `:${"-".repeat(widths[i] + 1)}`))
    .join("|")}|`;
  return [line(heads), rule, ...cells.map(line)].join("\n");
}
