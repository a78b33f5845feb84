// opencode makes a tool of every export that has `args`, `description` and `execute`.
export default {
  description: "Query the database",
  args: {},
  async execute() { return "rows" },
}
export const migrate = { description: "Run migrations", args: {}, execute: async () => "done" }
export const VERSION = "1.2"
export const settings = { description: "not a tool: no args or execute" }
export function helper() { return 1 }
export class Pool {}
export type Row = { id: number }
