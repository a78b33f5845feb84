import { tool } from "@opencode-ai/plugin"

// every kind of argument forge-tools reads from a zod `args` object (opencode's tool.schema is zod)
export default tool({
  description: "Query the project database",
  args: {
    query: tool.schema.string().describe("SQL to run"),
    limit: tool.schema.number().int().min(1).max(100).optional().describe("Row cap"),
    format: tool.schema.enum(["json", "csv"]).default("json"),
    dry: tool.schema.boolean().optional(),
    tables: tool.schema.array(tool.schema.string()).optional(),
    opts: tool.schema.object({ depth: tool.schema.number(), label: tool.schema.string().optional() }).optional(),
    mode: tool.schema.literal("fast").optional(),
    note: tool.schema.string().nullable().optional(),
    size: tool.schema.number().positive().optional(),
    name: tool.schema.string().min(2).max(10).optional(),
  },
  async execute(args) {
    return JSON.stringify(args)
  },
})

export const plain = tool({ description: "No arguments", args: {}, async execute() { return "ok" } })
