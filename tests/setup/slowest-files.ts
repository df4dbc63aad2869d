import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

/** How many of the slowest test files a run names at its end. */
const SHOWN = 10

/**
 * Names the ten test files that took longest, each with its project, at the end of a run: where
 * the suite's time goes, so that the next cut is made where it counts (docs/development/testing.md).
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => ({ file: relative(process.cwd(), module.moduleId), project: module.project.name, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN)
    if (rows.length === 0) return
    const width = Math.max(...rows.map((row) => row.file.length))
    console.log(`\nThe ${rows.length} slowest test files:`)
    for (const row of rows) console.log(`  ${(row.ms / 1000).toFixed(1).padStart(6)} s  ${row.file.padEnd(width)}  ${row.project}`)
  }
}
