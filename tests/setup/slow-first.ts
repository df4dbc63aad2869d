import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Vitest's order, with the `slow` project's files first. Vitest runs the projects' files in the
 * order of the projects' names and, within one, the longest first by its cache of the last run; a
 * clean clone (CI) has no cache, so the slow suites, last by name, were the run's tail: the replica
 * kill test (40 s, most of it a lease run out) ended with one worker idle beside it. Started first,
 * the long files end while the short ones fill both workers.
 */
export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const slow = (file: TestSpecification) => file.project.name === 'slow'
    return [...sorted.filter(slow), ...sorted.filter((file) => !slow(file))]
  }
}
