/**
 * The import drawing's one rule ESLint does not check: no cycle between modules, type-only imports
 * included (import-x/no-cycle passes over `import type`, so a cycle of types alone went unseen, and
 * ESLint no longer runs it: this is the one home of the rule).
 * `npm run lint` runs it after ESLint, on the main process and on the GUI.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A module never imports itself back through others, not even for a type: move what both need to where both can import it.',
      from: {},
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too: they are what the drawing is about.
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'], conditionNames: ['import', 'node', 'default'] }
  }
}
