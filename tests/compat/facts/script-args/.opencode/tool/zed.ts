import { z } from "zod"

export default {
  description: "Count things",
  args: { n: z.number().describe("How many"), unit: z.string().optional() },
  async execute(args: { n: number; unit?: string }) {
    return `${args.n} ${args.unit ?? "items"}`
  },
}
