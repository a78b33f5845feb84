// A tool that prints `count` lines (default 3000) of `width` characters (a plain object: opencode's tool shape
// without importing @opencode-ai/plugin, so no dependency install is needed offline).
export default {
  description: "Prints many lines",
  args: {},
  async execute(args: { count?: number; width?: number }) {
    const count = args.count ?? 3000
    const width = args.width ?? 0
    return Array.from({ length: count }, (_, i) => `line ${i + 1}` + "x".repeat(width)).join("\n")
  },
}
